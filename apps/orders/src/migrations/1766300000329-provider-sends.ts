import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';
import { dispatchSendsDdl } from '@payments/provider-dispatch';

/**
 * Each send's answer and duration on its dispatch row, and the operator views that show them and
 * the attempts' providers (decision 329), and the shops' routes (decision 331): the console's
 * Providers panel. The views keep their columns and grants (CREATE OR REPLACE adds columns at the
 * end).
 */
export class ProviderSends1766300000329 implements MigrationInterface {
  name = 'ProviderSends1766300000329';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    for (const sql of dispatchSendsDdl(s, 'provider_dispatches')) await q.query(sql);
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_provider_dispatches AS
      SELECT payment_id, order_id, status, sends, updated_at,
             provider, created_at, send_answers, send_ms, last_sent_at, last_error_at
        FROM "${s}".provider_dispatches`);
    // Click and Payme call us: their attempts are the only record of how they are doing.
    await q.query(`CREATE INDEX IF NOT EXISTS payment_attempts_created_at ON "${s}".payment_attempts (created_at)`);
    await q.query(`CREATE OR REPLACE VIEW "${s}".ops_payment_attempts AS
      SELECT order_id, payment_id, status, provider, created_at, updated_at FROM "${s}".payment_attempts`);
    // Each shop's routes, shown read-only beside how their providers are doing (decision 331).
    await q.query(`CREATE VIEW "${s}".ops_shop_routes AS
      SELECT shop_id, method, providers, updated_at FROM "${s}".shop_routes`);
    await q.query(grantOpsViewsSql(s, ['ops_shop_routes']));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP VIEW "${s}".ops_shop_routes`);
    for (const view of ['ops_provider_dispatches', 'ops_payment_attempts']) await q.query(`DROP VIEW "${s}".${view}`);
    await q.query(`CREATE VIEW "${s}".ops_provider_dispatches AS
      SELECT payment_id, order_id, status, sends, updated_at FROM "${s}".provider_dispatches`);
    await q.query(`CREATE VIEW "${s}".ops_payment_attempts AS
      SELECT order_id, payment_id, status FROM "${s}".payment_attempts`);
    await q.query(grantOpsViewsSql(s, ['ops_provider_dispatches', 'ops_payment_attempts']));
    await q.query(`DROP INDEX "${s}".payment_attempts_created_at`);
    await q.query(`ALTER TABLE "${s}".provider_dispatches DROP COLUMN send_answers, DROP COLUMN send_ms,
      DROP COLUMN last_sent_at, DROP COLUMN last_error_at`);
  }
}
