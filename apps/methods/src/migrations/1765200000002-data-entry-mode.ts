import { MigrationInterface, QueryRunner } from 'typeorm';

/** How the payer gives a method's data (issue 20): null keeps the instrument type's default. */
export class DataEntryMode1765200000002 implements MigrationInterface {
  name = 'DataEntryMode1765200000002';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'methods';
    for (const table of ['payment_methods', 'payout_methods'])
      await q.query(`ALTER TABLE "${s}".${table} ADD COLUMN data_entry_mode text`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'methods';
    for (const table of ['payment_methods', 'payout_methods'])
      await q.query(`ALTER TABLE "${s}".${table} DROP COLUMN data_entry_mode`);
  }
}
