import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

/** Payment and payout methods have the same shape but separate lifecycles and codes, so two tables. */
export class Init1764200000000 implements MigrationInterface {
  name = 'Init1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'methods';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    for (const table of ['payment_methods', 'payout_methods']) {
      await q.query(`
        CREATE TABLE "${s}".${table} (
          id uuid PRIMARY KEY,
          shop_id uuid NOT NULL,
          code text NOT NULL,
          instrument_type text NOT NULL,
          card_brands text[],
          -- [{ currency, tokenStandard?, minAmount?, maxAmount? }]; limits are decimal strings, never JSON numbers
          currencies jsonb NOT NULL,
          provider text NOT NULL,
          wallet_types text[] NOT NULL DEFAULT '{}',
          enabled boolean NOT NULL DEFAULT true,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT ${table}_code UNIQUE (shop_id, code),
          CONSTRAINT ${table}_instrument CHECK (instrument_type IN ('card','wallet','bank_transfer','mobile_top_up','crypto')),
          CONSTRAINT ${table}_brands_only_card CHECK (card_brands IS NULL OR instrument_type = 'card'),
          CONSTRAINT ${table}_wallet_types_only_wallet CHECK (cardinality(wallet_types) = 0 OR instrument_type = 'wallet')
        )`);
      await q.query(`CREATE INDEX ${table}_shop ON "${s}".${table} (shop_id, code)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'methods';
    await q.query(`DROP TABLE "${s}".payout_methods`);
    await q.query(`DROP TABLE "${s}".payment_methods`);
  }
}
