import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A credit waiting for a rate can be parked (decision 304): `parked` names why the conversion
 * sweep leaves it alone — `refund hold` while a refund's hold took all that was left of it in
 * suspense (its finish un-parks it), or the error a conversion of it failed with (an operator
 * un-parks it). The row stays, so the money in suspense stays seen: by the metric and the finding.
 */
export class LedgerAwaitingRatesParked1765900000001 implements MigrationInterface {
  name = 'LedgerAwaitingRatesParked1765900000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".awaiting_rates ADD COLUMN parked text, ADD COLUMN parked_at timestamptz`);
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_awaiting_rates AS
      SELECT transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at, parked
        FROM "${s}".awaiting_rates`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP VIEW "${s}".ops_awaiting_rates`);
    await q.query(`CREATE VIEW "${s}".ops_awaiting_rates AS
      SELECT transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at
        FROM "${s}".awaiting_rates`);
    await q.query(`ALTER TABLE "${s}".awaiting_rates DROP COLUMN parked, DROP COLUMN parked_at`);
  }
}
