import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A refund's hold refused is remembered by the refund and the command that asked for it (decision
 * 354): the orders service asks again under the same command only when it handles that command
 * again after a crash, and that ask must get the answer the merchant was given, not a hold made
 * from a credit booked since. The merchant's retry with the same key is a new command, decided anew.
 */
export class LedgerRefundRefusals1765900000354 implements MigrationInterface {
  name = 'LedgerRefundRefusals1765900000354';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`CREATE TABLE "${s}".refund_refusals (
        refund_id uuid NOT NULL,
        attempt_id uuid NOT NULL,
        order_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        detail text NOT NULL,
        refused_at timestamptz NOT NULL,
        PRIMARY KEY (refund_id, attempt_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP TABLE "${s}".refund_refusals`);
  }
}
