import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';

/**
 * Whether an operator resolved the order by hand (decision 301), in its operator view (decision
 * 343): the reconciliation's `replaced_attempt_paid` leaves out a paid replaced attempt only when an
 * operator settled its order since, not when the order moved for another reason (a refund, the
 * processing timeout). The operator's identity stays out of the view. CREATE OR REPLACE adds the
 * column at the end and keeps the view's grants.
 */
export class OpsOrdersResolved1766300002343 implements MigrationInterface {
  name = 'OpsOrdersResolved1766300002343';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_orders AS
      SELECT id, shop_id, status, amount, currency, sequence, created_at, updated_at,
             resolved_by IS NOT NULL AS resolved_by_operator
        FROM "${s}".orders`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP VIEW "${s}".ops_orders`);
    await q.query(`CREATE VIEW "${s}".ops_orders AS
      SELECT id, shop_id, status, amount, currency, sequence, created_at, updated_at FROM "${s}".orders`);
    await q.query(grantOpsViewsSql(s, ['ops_orders']));
  }
}
