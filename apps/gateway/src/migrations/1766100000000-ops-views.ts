import { MigrationInterface, QueryRunner } from 'typeorm';
import { opsMessagingViewsDdl } from '@payments/messaging';
import { grantOpsViewsSql } from '@payments/platform';

/** The views operators read of the gateway schema (decision 300); made and granted by the owner. */
export const OPS_VIEWS = ['ops_outbox_unpublished'] as const;

/**
 * The gateway's outbox as the backoffice's reconciliation and overview read it (decision 300): when
 * each unpublished row was written, nothing of what it carries. Granted to their read-only role; a
 * simple view, inlined by the planner onto the partial index outbox_unpublished.
 */
export class OpsViews1766100000000 implements MigrationInterface {
  name = 'OpsViews1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    for (const sql of opsMessagingViewsDdl(s, { inbox: false })) await q.query(sql);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
