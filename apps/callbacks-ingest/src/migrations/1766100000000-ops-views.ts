import { MigrationInterface, QueryRunner } from 'typeorm';
import { opsMessagingViewsDdl } from '@payments/messaging';
import { grantOpsViewsSql } from '@payments/platform';

/** The views operators read of the callbacks_ingest schema (decision 300); made and granted by the owner. */
export const OPS_VIEWS = ['ops_provider_callbacks', 'ops_outbox_unpublished'] as const;

/**
 * The callbacks_ingest schema as the backoffice's reconciliation and overview read it (decision
 * 300): who reported what about which reference, and when; never the raw body or its signature.
 * Granted to their read-only role; simple views, inlined by the planner. A later migration that
 * changes a column one of them shows drops and recreates that view.
 */
export class OpsViews1766100000000 implements MigrationInterface {
  name = 'OpsViews1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`CREATE VIEW "${s}".ops_provider_callbacks AS
      SELECT id, provider_code, provider_event_id, reference, received_at FROM "${s}".provider_callbacks`);
    for (const sql of opsMessagingViewsDdl(s, { inbox: false })) await q.query(sql);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
