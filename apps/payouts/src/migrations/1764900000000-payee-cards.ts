import { MigrationInterface, QueryRunner } from 'typeorm';
import type { CardVault } from '@payments/card-vault';
import type { CardRef } from '@payments/contracts';
import { isCardNumber } from '@payments/methods-domain';

/**
 * Card numbers leave `payouts.payee` for the card vault (docs/decisions.md 112): every payee value
 * that is a card number becomes a token in `payee_cards` and is removed from `payee`.
 */
export function payeeCardsMigration(vault: CardVault): Function {
  return class PayeeCards1764900000000 implements MigrationInterface {
    name = 'PayeeCards1764900000000';

    async up(q: QueryRunner): Promise<void> {
      const s = q.connection.driver.schema ?? 'payouts';
      await q.query(`ALTER TABLE "${s}".payouts ADD COLUMN payee_cards jsonb`);
      const rows: Array<{ id: string; payee: Record<string, unknown> }> = await q.query(
        `SELECT id, payee FROM "${s}".payouts FOR UPDATE`,
      );
      const holding = rows.filter((row) => Object.values(row.payee).some(isCardNumber)).length;
      if (holding > 0 && !vault.tokenizes)
        throw new Error(
          `${holding} payouts from before the card vault hold card numbers: start payouts once with ` +
            `CARD_VAULT_FINGERPRINT_KEY (the gateway's) to move them into the vault, then remove it (decision 259)`,
        );
      for (const row of rows) {
        const cards: Record<string, CardRef> = {};
        const payee: Record<string, unknown> = {};
        for (const [field, value] of Object.entries(row.payee)) {
          if (!isCardNumber(value)) {
            payee[field] = value;
            continue;
          }
          const { token, bin, last4, masked } = await vault.tokenize(value);
          cards[field] = { token, bin, last4, masked };
        }
        if (Object.keys(cards).length === 0) continue;
        await q.query(`UPDATE "${s}".payouts SET payee = $2, payee_cards = $3 WHERE id = $1`, [
          row.id,
          JSON.stringify(payee),
          JSON.stringify(cards),
        ]);
      }
    }

    async down(): Promise<void> {
      throw new Error('card numbers are not taken back out of the vault');
    }
  };
}
