import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orphan holds (decision 277): a payout's hold is confirmed by the first event of its payout; one
 * never confirmed after a bounded time is voided by the orphan sweep. Open holds are found by age.
 */
export class LedgerHoldConfirmed1765700000000 implements MigrationInterface {
  name = 'LedgerHoldConfirmed1765700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".holds ADD COLUMN confirmed_at timestamptz`);
    await q.query(
      `CREATE INDEX holds_open ON "${s}".holds (created_at) WHERE status = 'held' AND confirmed_at IS NULL`,
    );
    await q.query(`CREATE INDEX refund_holds_open ON "${s}".refund_holds (created_at) WHERE status = 'held'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP INDEX "${s}".refund_holds_open`);
    await q.query(`DROP INDEX "${s}".holds_open`);
    await q.query(`ALTER TABLE "${s}".holds DROP COLUMN confirmed_at`);
  }
}
