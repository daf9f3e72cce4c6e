import { MigrationInterface, QueryRunner } from 'typeorm';

/** A refund locks its order's credit waiting for a rate by the order (decision 304): found by index. */
export class LedgerAwaitingRatesOrder1765800000001 implements MigrationInterface {
  name = 'LedgerAwaitingRatesOrder1765800000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`CREATE INDEX awaiting_rates_order ON "${s}".awaiting_rates (order_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP INDEX "${s}".awaiting_rates_order`);
  }
}
