import { MigrationInterface, QueryRunner } from 'typeorm';

const KINDS_BEFORE = `'order_completed', 'order_refunded', 'settlement', 'payout_reserved', 'payout_posted', 'payout_voided'`;

/**
 * Refund holds (decision 276): a refund's debit is reserved before the orders service accepts it,
 * posted when the refund is booked, voided when the refund never came to be. One row per refund.
 */
export class LedgerRefundHolds1765600000000 implements MigrationInterface {
  name = 'LedgerRefundHolds1765600000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`
      CREATE TABLE "${s}".refund_holds (
        refund_id uuid PRIMARY KEY,
        order_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        provider text NOT NULL,
        order_currency text NOT NULL,
        amount numeric(38, 18) NOT NULL,
        credit_currency text NOT NULL,
        debit numeric(38, 18) NOT NULL,
        source text NOT NULL,
        status text NOT NULL DEFAULT 'held',
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        CONSTRAINT refund_holds_source CHECK (source IN ('available', 'suspense')),
        CONSTRAINT refund_holds_status CHECK (status IN ('held', 'posted', 'voided'))
      )`);
    await q.query(`ALTER TABLE "${s}".transactions DROP CONSTRAINT transactions_kind`);
    await q.query(
      `ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_kind CHECK (kind IN (${KINDS_BEFORE}, 'refund_reserved', 'refund_voided'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".transactions DROP CONSTRAINT transactions_kind`);
    await q.query(`ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_kind CHECK (kind IN (${KINDS_BEFORE}))`);
    await q.query(`DROP TABLE "${s}".refund_holds`);
  }
}
