import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';
import { dispatchQueueDdl } from '@payments/provider-dispatch';

export class Init1764200000000 implements MigrationInterface {
  name = 'Init1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`
      CREATE TABLE "${s}".payouts (
        id uuid PRIMARY KEY,
        shop_id uuid NOT NULL,
        merchant_payout_id text NOT NULL,
        method text NOT NULL,
        provider text NOT NULL,
        status text NOT NULL,
        status_code text,
        amount numeric(38, 18) NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        token_standard text,
        crypto_token_standard text,
        description text,
        instrument_type text,
        wallet_type text,
        payee jsonb NOT NULL,
        callback_url text,
        need_action_reason text,
        reported_amount numeric(38, 18),
        reported_currency text,
        sequence int NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT payouts_merchant_payout_id UNIQUE (shop_id, merchant_payout_id),
        CONSTRAINT payouts_status CHECK (status IN ('registered','in_progress','need_action','completed','failed'))
      )`);
    for (const sql of dispatchQueueDdl({
      schema: s,
      table: 'provider_dispatches',
      idColumn: 'dispatch_id',
      referenceColumn: 'payout_id',
      aggregateTable: 'payouts',
    }))
      await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`DROP TABLE "${s}".provider_dispatches`);
    await q.query(`DROP TABLE "${s}".payouts`);
  }
}
