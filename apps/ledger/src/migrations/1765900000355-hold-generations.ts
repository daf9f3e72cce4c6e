import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A hold voided and asked for again is held anew under the same payout or refund (decision 355):
 * each hold of it is a generation, and the generation names its postings' idempotency keys, so a
 * second hold, void or post is booked and not taken for the first one's.
 */
export class LedgerHoldGenerations1765900000355 implements MigrationInterface {
  name = 'LedgerHoldGenerations1765900000355';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    // A constant default adds the column without rewriting the table; the check is added NOT VALID,
    // so neither statement scans the table while it holds its lock (every row so far is 1).
    for (const table of ['holds', 'refund_holds']) {
      await q.query(`ALTER TABLE "${s}".${table} ADD COLUMN generation integer NOT NULL DEFAULT 1`);
      await q.query(`ALTER TABLE "${s}".${table} ADD CONSTRAINT ${table}_generation CHECK (generation >= 1) NOT VALID`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const table of ['holds', 'refund_holds']) await q.query(`ALTER TABLE "${s}".${table} DROP COLUMN generation`);
  }
}
