import { MigrationInterface, QueryRunner } from 'typeorm';
import { opsMessagingViewsDdl } from '@payments/messaging';
import { grantOpsViewsSql } from '@payments/platform';

/** The views operators read of the p2p schema (decision 300); made and granted by the owner. */
export const OPS_VIEWS = [
  'ops_transactions',
  'ops_provider_dispatches',
  'ops_inbox',
  'ops_outbox_unpublished',
] as const;

/**
 * The p2p schema as the backoffice's reconciliation and overview read it (decision 300): the columns
 * they use and nothing else (no parties, card tokens, amount or callback URL), granted to their
 * read-only role. Simple views, inlined by the planner. A later migration that changes a column
 * one of them shows drops and recreates that view.
 */
export class OpsViews1766100000000 implements MigrationInterface {
  name = 'OpsViews1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    await q.query(
      `CREATE VIEW "${s}".ops_transactions AS SELECT id, status, sequence, updated_at FROM "${s}".transactions`,
    );
    await q.query(`CREATE VIEW "${s}".ops_provider_dispatches AS
      SELECT dispatch_id, p2p_id, provider, status, sends, provider_payment_id, last_error, created_at, updated_at
        FROM "${s}".provider_dispatches`);
    for (const sql of opsMessagingViewsDdl(s, { inbox: true })) await q.query(sql);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
