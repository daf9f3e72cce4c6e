import { MigrationInterface, QueryRunner } from 'typeorm';

/** Payout via payment page (issue 20): an operator setting of the shop, off unless turned on. */
export class PayoutViaPaymentPage1765300000001 implements MigrationInterface {
  name = 'PayoutViaPaymentPage1765300000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops ADD COLUMN payout_via_payment_page boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops DROP COLUMN payout_via_payment_page`);
  }
}
