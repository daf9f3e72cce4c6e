import { MigrationInterface, QueryRunner } from 'typeorm';
import { opsMessagingViewsDdl } from '@payments/messaging';
import { grantOpsViewsSql } from '@payments/platform';

/** The views operators read of the orders schema (decision 300); made and granted by the owner. */
export const OPS_VIEWS = [
  'ops_orders',
  'ops_refunds',
  'ops_provider_dispatches',
  'ops_payment_attempts',
  'ops_inbox',
  'ops_outbox_unpublished',
] as const;

/**
 * The orders schema as the backoffice's reconciliation and overview read it (decision 300): the
 * columns they use and nothing else (no payer, card token or masked number, link, callback URL or
 * body), granted to their read-only role. Simple views, inlined by the planner: the indexes of the
 * tables serve the queries as before. A later migration that changes a column one of them shows
 * drops and recreates that view.
 */
export class OpsViews1766100000000 implements MigrationInterface {
  name = 'OpsViews1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`CREATE VIEW "${s}".ops_orders AS
      SELECT id, shop_id, status, amount, currency, sequence, created_at, updated_at FROM "${s}".orders`);
    await q.query(`CREATE VIEW "${s}".ops_refunds AS SELECT order_id, amount, created_at FROM "${s}".refunds`);
    await q.query(`CREATE VIEW "${s}".ops_provider_dispatches AS
      SELECT payment_id, order_id, status, sends, updated_at FROM "${s}".provider_dispatches`);
    await q.query(`CREATE VIEW "${s}".ops_payment_attempts AS
      SELECT order_id, payment_id, status FROM "${s}".payment_attempts`);
    for (const sql of opsMessagingViewsDdl(s, { inbox: true })) await q.query(sql);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
