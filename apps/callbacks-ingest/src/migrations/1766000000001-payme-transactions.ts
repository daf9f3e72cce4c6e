import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payme's transactions (libs/providers/payme), by Payme's id; times in ms as Payme reads them. At
 * most one open (state 1) and one performed (state 2) transaction per order.
 */
export class PaymeTransactions1766000000001 implements MigrationInterface {
  name = 'PaymeTransactions1766000000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`
      CREATE TABLE "${s}".payme_transactions (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        order_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        state smallint NOT NULL CHECK (state IN (1, 2, -1, -2)),
        payme_time bigint NOT NULL,
        create_time bigint NOT NULL,
        perform_time bigint NOT NULL DEFAULT 0,
        cancel_time bigint NOT NULL DEFAULT 0,
        reason int
      )`);
    await q.query(
      `CREATE UNIQUE INDEX payme_transactions_one_open ON "${s}".payme_transactions (order_id) WHERE state = 1`,
    );
    await q.query(
      `CREATE UNIQUE INDEX payme_transactions_one_paid ON "${s}".payme_transactions (order_id) WHERE state = 2`,
    );
    await q.query(`CREATE INDEX payme_transactions_time ON "${s}".payme_transactions (merchant_id, payme_time)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`DROP TABLE "${s}".payme_transactions`);
  }
}
