import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';

const KINDS_BEFORE = `'order_completed', 'order_refunded', 'settlement', 'payout_reserved', 'payout_posted', 'payout_voided', 'refund_reserved', 'refund_voided'`;

/** The views operators read of the ledger schema (decision 300): the books' checks and the ledger findings. */
export const OPS_VIEWS = [
  'ops_accounts',
  'ops_postings',
  'ops_transactions',
  'ops_holds',
  'ops_awaiting_rates',
] as const;

/**
 * A credit waiting for a rate is converted once the rate exists (decision 304): `awaiting_rates`
 * is the queue of such credits (one row per credit, taken with SKIP LOCKED by the conversion sweep,
 * the marker that it still waits), and `suspense_converted` the transaction that converts it.
 * Credits that waited before this migration are queued without their balance currency (it was
 * not recorded): they stay in suspense and show as a finding for an operator.
 *
 * And the ledger's operator views (decisions 300, 306): what the books' checks and the
 * reconciliation's ledger findings read, granted to the reconciliation's read-only role. A
 * posting's and an account's amounts are shown: the books' checks are about them.
 */
export class LedgerRateConversion1765800000000 implements MigrationInterface {
  name = 'LedgerRateConversion1765800000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".transactions DROP CONSTRAINT transactions_kind`);
    await q.query(
      `ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_kind CHECK (kind IN (${KINDS_BEFORE}, 'suspense_converted'))`,
    );
    await q.query(`
      CREATE TABLE "${s}".awaiting_rates (
        transaction_id uuid PRIMARY KEY REFERENCES "${s}".transactions (id),
        shop_id uuid NOT NULL,
        order_id text NOT NULL,
        order_currency text NOT NULL,
        balance_currency text,
        amount numeric(38, 18) NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX awaiting_rates_pair ON "${s}".awaiting_rates (order_currency, balance_currency)`);
    await q.query(`
      INSERT INTO "${s}".awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at)
      SELECT id, shop_id, source_id, operation_currency, NULL, net, created_at FROM "${s}".transactions
       WHERE kind = 'order_completed' AND status = 'awaiting_rate'`);
    await q.query(`CREATE VIEW "${s}".ops_accounts AS SELECT key, kind, balance FROM "${s}".accounts`);
    await q.query(
      `CREATE VIEW "${s}".ops_postings AS SELECT transaction_id, account_key, currency, amount FROM "${s}".postings`,
    );
    await q.query(`CREATE VIEW "${s}".ops_transactions AS
      SELECT id, kind, source_id, gross, created_at FROM "${s}".transactions`);
    await q.query(`CREATE VIEW "${s}".ops_holds AS SELECT payout_id, status FROM "${s}".holds`);
    await q.query(`CREATE VIEW "${s}".ops_awaiting_rates AS
      SELECT transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at
        FROM "${s}".awaiting_rates`);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
    await q.query(`DROP TABLE "${s}".awaiting_rates`);
    await q.query(`ALTER TABLE "${s}".transactions DROP CONSTRAINT transactions_kind`);
    await q.query(`ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_kind CHECK (kind IN (${KINDS_BEFORE}))`);
  }
}
