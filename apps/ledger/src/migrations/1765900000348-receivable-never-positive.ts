import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A shop's receivable runs negative by what it owes and a settlement pays it back toward zero,
 * never past it (decision 348): a positive receivable would be money we owe the shop that no
 * balance shows. As for the balances that must not go negative (decision 270), the database
 * refuses it, whatever a bug in the sweep would post. Nothing ever raised a receivable before.
 */
export class LedgerReceivableNeverPositive1765900000348 implements MigrationInterface {
  name = 'LedgerReceivableNeverPositive1765900000348';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(
      `ALTER TABLE "${s}".accounts ADD CONSTRAINT accounts_receivable_never_positive
         CHECK (kind IS DISTINCT FROM 'receivable' OR balance <= 0)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".accounts DROP CONSTRAINT accounts_receivable_never_positive`);
  }
}
