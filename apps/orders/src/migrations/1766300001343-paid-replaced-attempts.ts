import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';

/**
 * The attempts' status code and reported money in their operator view (decision 343): the
 * reconciliation lists a payment a provider reported for a replaced attempt of an order that was
 * already final (`replaced_attempt_paid`). CREATE OR REPLACE adds the columns at the end and keeps
 * the view's grants.
 */
export class PaidReplacedAttempts1766300001343 implements MigrationInterface {
  name = 'PaidReplacedAttempts1766300001343';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_payment_attempts AS
      SELECT order_id, payment_id, status, provider, created_at, updated_at, status_code, amount, currency
        FROM "${s}".payment_attempts`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP VIEW "${s}".ops_payment_attempts`);
    await q.query(`CREATE VIEW "${s}".ops_payment_attempts AS
      SELECT order_id, payment_id, status, provider, created_at, updated_at FROM "${s}".payment_attempts`);
    await q.query(grantOpsViewsSql(s, ['ops_payment_attempts']));
  }
}
