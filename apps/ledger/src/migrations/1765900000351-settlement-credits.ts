import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A settlement moves a shop's due credits of one currency at once (decision 351): the transaction
 * records which credits it settled, so the books say what each settlement covered. Settlements
 * written before it settled one credit each and name it as their source; they keep no list.
 */
export class LedgerSettlementCredits1765900000351 implements MigrationInterface {
  name = 'LedgerSettlementCredits1765900000351';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".transactions ADD COLUMN settled_credits uuid[]`);
    await q.query(
      `ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_settled_credits
         CHECK (settled_credits IS NULL OR (kind = 'settlement' AND cardinality(settled_credits) > 0))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".transactions DROP COLUMN settled_credits`);
  }
}
