import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A refund's hold refused is remembered by refund id (decision 354): the orders service asks again
 * for the same refund only when its command is handled again after a crash (the merchant's key
 * keeps the refusal for good), and that second ask must get the answer the merchant was given, not
 * a hold made from a credit booked since.
 */
export class LedgerRefundRefusals1765900000354 implements MigrationInterface {
  name = 'LedgerRefundRefusals1765900000354';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`CREATE TABLE "${s}".refund_refusals (
        refund_id uuid PRIMARY KEY,
        order_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        detail text NOT NULL,
        refused_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP TABLE "${s}".refund_refusals`);
  }
}
