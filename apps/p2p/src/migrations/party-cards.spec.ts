import type { QueryRunner } from 'typeorm';
import type { CardVault } from '@payments/card-vault';
import { partyCardsMigration } from './1764900000001-party-cards';

const runner = (rows: unknown[]) =>
  ({
    connection: { driver: { schema: 'p2p' } },
    query: jest.fn(async (sql: string) => (sql.trimStart().startsWith('SELECT') ? rows : [])),
  }) as unknown as QueryRunner;

const up = (tokenizes: boolean, q: QueryRunner) =>
  new (
    partyCardsMigration({ tokenizes, tokenize: jest.fn() } as unknown as CardVault) as new () => {
      up(q: QueryRunner): Promise<void>;
    }
  )().up(q);

describe('PartyCards: moving the card numbers of a database from before the vault (decision 259)', () => {
  it('when p2p has no fingerprint key and a transaction holds a card number, then it stops saying how to move them', async () => {
    const q = runner([{ id: 't-1', sender: { cardNumber: '4111111111111111' }, recipient: null }]);
    await expect(up(false, q)).rejects.toThrow(/1 P2P transactions from before the card vault hold card numbers/);
  });

  it('when p2p has no fingerprint key and no transaction holds a card number, then the migration passes', async () => {
    await expect(up(false, runner([]))).resolves.toBeUndefined();
  });
});
