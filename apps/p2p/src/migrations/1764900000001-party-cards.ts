import { MigrationInterface, QueryRunner } from 'typeorm';
import type { CardVault } from '@payments/card-vault';
import { isCardNumber } from '@payments/methods-domain';

type StoredParty = Record<string, unknown> | null;

/**
 * Card numbers leave `transactions.sender` / `recipient` for the card vault (docs/decisions.md
 * 112): each party's `cardNumber` becomes `card`, the vault's token with BIN, last 4 and mask.
 */
export function partyCardsMigration(vault: CardVault): Function {
  async function tokenized(party: StoredParty): Promise<StoredParty> {
    if (!party || !isCardNumber(party.cardNumber)) return party;
    const { cardNumber, ...rest } = party;
    const { token, bin, last4, masked } = await vault.tokenize(cardNumber as string);
    return { ...rest, card: { token, bin, last4, masked } };
  }

  return class PartyCards1764900000001 implements MigrationInterface {
    name = 'PartyCards1764900000001';

    async up(q: QueryRunner): Promise<void> {
      const s = q.connection.driver.schema ?? 'p2p';
      const rows: Array<{ id: string; sender: StoredParty; recipient: StoredParty }> = await q.query(
        `SELECT id, sender, recipient FROM "${s}".transactions
         WHERE sender ? 'cardNumber' OR recipient ? 'cardNumber' FOR UPDATE`,
      );
      if (rows.length > 0 && !vault.tokenizes)
        throw new Error(
          `${rows.length} P2P transactions from before the card vault hold card numbers: start p2p once with ` +
            `CARD_VAULT_FINGERPRINT_KEY (the gateway's) to move them into the vault, then remove it (decision 259)`,
        );
      for (const row of rows) {
        const sender = await tokenized(row.sender);
        const recipient = await tokenized(row.recipient);
        await q.query(`UPDATE "${s}".transactions SET sender = $2, recipient = $3 WHERE id = $1`, [
          row.id,
          sender === null ? null : JSON.stringify(sender),
          recipient === null ? null : JSON.stringify(recipient),
        ]);
      }
    }

    async down(): Promise<void> {
      throw new Error('card numbers are not taken back out of the vault');
    }
  };
}
