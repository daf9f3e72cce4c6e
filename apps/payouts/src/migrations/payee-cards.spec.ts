import type { QueryRunner } from 'typeorm';
import type { CardVault } from '@payments/card-vault';
import { payeeCardsMigration } from './1764900000000-payee-cards';

/** A query runner over one pre-vault payout row, recording the statements. */
function runner(payee: Record<string, unknown>) {
  const statements: { sql: string; params?: unknown[] }[] = [];
  const q = {
    connection: { driver: { schema: 'payouts' } },
    query: jest.fn(async (sql: string, params?: unknown[]) => {
      statements.push({ sql, params });
      return sql.startsWith('SELECT') ? [{ id: 'p-1', payee }] : [];
    }),
  } as unknown as QueryRunner;
  return { q, statements };
}

const vault = (tokenizes: boolean) =>
  ({
    tokenizes,
    tokenize: jest.fn(async () => ({ token: 'card_t', bin: '860006', last4: '6311', masked: '860006******6311' })),
  }) as unknown as CardVault & { tokenize: jest.Mock };

const up = (v: CardVault, q: QueryRunner) =>
  new (payeeCardsMigration(v) as new () => { up(q: QueryRunner): Promise<void> })().up(q);

describe('PayeeCards: moving the card numbers of a database from before the vault (decision 259)', () => {
  it('when payouts has no fingerprint key and a payout holds a card number, then it stops saying how to move them', async () => {
    const { q } = runner({ cardNumber: '8600069195406311', cardHolder: 'JANE DOE' });
    await expect(up(vault(false), q)).rejects.toThrow(
      /1 payouts from before the card vault hold card numbers: start payouts once with CARD_VAULT_FINGERPRINT_KEY/,
    );
  });

  it('when payouts has no fingerprint key and no payout holds a card number, then the migration passes', async () => {
    const { q, statements } = runner({ walletId: 'w-1' });
    await expect(up(vault(false), q)).resolves.toBeUndefined();
    expect(statements.some((s) => s.sql.startsWith('UPDATE'))).toBe(false);
  });

  it('when it is given the key once, then the number goes to the vault and leaves the payee', async () => {
    const v = vault(true);
    const { q, statements } = runner({ cardNumber: '8600069195406311', cardHolder: 'JANE DOE' });
    await up(v, q);
    expect(v.tokenize).toHaveBeenCalledWith('8600069195406311');
    const update = statements.find((s) => s.sql.startsWith('UPDATE'))!;
    expect(update.params).toEqual([
      'p-1',
      JSON.stringify({ cardHolder: 'JANE DOE' }),
      JSON.stringify({ cardNumber: { token: 'card_t', bin: '860006', last4: '6311', masked: '860006******6311' } }),
    ]);
  });
});
