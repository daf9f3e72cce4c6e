import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';

/**
 * A settlement moves a shop's due credits of one currency at once (decision 351): the transaction
 * records which credits it settled, so the books say what each settlement covered and the books'
 * checks can see a credit settled twice (`credit_settled_twice`, through `ops_transactions`).
 * Settlements written before it settled one credit each and name it as their source; they keep no
 * list, and only they may go without one. The CHECK is added NOT VALID and then validated: every
 * existing row has no list and none names itself as source, so the validation's scan passes.
 */
export class LedgerSettlementCredits1765900000351 implements MigrationInterface {
  name = 'LedgerSettlementCredits1765900000351';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`ALTER TABLE "${s}".transactions ADD COLUMN settled_credits uuid[]`);
    await q.query(
      `ALTER TABLE "${s}".transactions ADD CONSTRAINT transactions_settled_credits
         CHECK (CASE WHEN source_type = 'settlement' THEN kind = 'settlement' AND coalesce(cardinality(settled_credits), 0) > 0
                     ELSE settled_credits IS NULL END) NOT VALID`,
    );
    await q.query(`ALTER TABLE "${s}".transactions VALIDATE CONSTRAINT transactions_settled_credits`);
    // The operators' view gains the list at its end (CREATE OR REPLACE keeps its grants).
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_transactions AS
      SELECT id, kind, source_id, gross, created_at, settled_credits FROM "${s}".transactions`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP VIEW "${s}".ops_transactions`);
    await q.query(`CREATE VIEW "${s}".ops_transactions AS
      SELECT id, kind, source_id, gross, created_at FROM "${s}".transactions`);
    await q.query(grantOpsViewsSql(s, ['ops_transactions']));
    await q.query(`ALTER TABLE "${s}".transactions DROP COLUMN settled_credits`);
  }
}
