import { MigrationInterface, QueryRunner } from 'typeorm';

/** Refusals are purged by age once no command can come back to them (decision 356): by `refused_at`. */
export class LedgerHoldRefusalsPurged1765900000356 implements MigrationInterface {
  name = 'LedgerHoldRefusalsPurged1765900000356';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`CREATE INDEX hold_refusals_refused_at ON "${s}".hold_refusals (refused_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP INDEX "${s}".hold_refusals_refused_at`);
  }
}
