import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Click's transactions (libs/providers/click): one row per `click_trans_id`, so a repeated Prepare
 * or Complete is answered from it. `merchant_prepare_id` is ours, from a sequence; at most one
 * completed transaction per order, so two Click payments of one order cannot both complete.
 */
export class ClickTransactions1766000000000 implements MigrationInterface {
  name = 'ClickTransactions1766000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`CREATE SEQUENCE "${s}".click_prepare_ids`);
    await q.query(`
      CREATE TABLE "${s}".click_transactions (
        click_trans_id bigint PRIMARY KEY,
        service_id bigint NOT NULL,
        click_paydoc_id bigint NOT NULL,
        order_id uuid NOT NULL,
        amount numeric(20, 2) NOT NULL CHECK (amount > 0),
        merchant_prepare_id bigint NOT NULL UNIQUE DEFAULT nextval('"${s}".click_prepare_ids'),
        state text NOT NULL CHECK (state IN ('prepared', 'completed', 'cancelled')),
        merchant_confirm_id bigint,
        click_error int,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX click_transactions_one_paid ON "${s}".click_transactions (order_id) WHERE state = 'completed'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`DROP TABLE "${s}".click_transactions`);
    await q.query(`DROP SEQUENCE "${s}".click_prepare_ids`);
  }
}
