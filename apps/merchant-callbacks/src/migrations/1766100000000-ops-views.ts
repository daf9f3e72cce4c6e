import { MigrationInterface, QueryRunner } from 'typeorm';
import { grantOpsViewsSql } from '@payments/platform';

/** The views operators read of the merchant_callbacks schema (decision 300); made and granted by the owner. */
export const OPS_VIEWS = ['ops_deliveries'] as const;

/**
 * merchant-callbacks' deliveries as the backoffice's reconciliation and overview read them (decision
 * 300): which object and sequence, the delivery's state, and of the body sent only the status and
 * amount it told the merchant (never the body, URL or shop's secrets). Granted to their read-only
 * role; a simple view, inlined by the planner, so a query on it uses the deliveries' indexes. A later
 * migration that changes a column it shows drops and recreates it.
 */
export class OpsViews1766100000000 implements MigrationInterface {
  name = 'OpsViews1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`CREATE VIEW "${s}".ops_deliveries AS
      SELECT object_type, object_id, sequence, status, window_started_at, last_error,
             body::jsonb ->> 'status' AS sent_status, body::jsonb -> 'cost' ->> 'amount' AS sent_amount
        FROM "${s}".deliveries`);
    await q.query(grantOpsViewsSql(s, OPS_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    for (const view of OPS_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
