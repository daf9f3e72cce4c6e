import { MigrationInterface, QueryRunner } from 'typeorm';
import { opsMessagingViewsDdl } from '@payments/messaging';
import { grantOpsViewsSql } from '@payments/platform';

/** The ledger's outbox view for operators (decision 300), since it publishes balance events (decision 313). */
export const OPS_OUTBOX_VIEWS = ['ops_outbox_unpublished'] as const;

/**
 * The ledger's outbox as the backoffice's reconciliation ("no outbox row stuck") and overview read
 * it: when each unpublished row was written, nothing of what it carries. Granted to their
 * read-only role, like every other service's.
 */
export class LedgerOpsOutboxView1765900000000 implements MigrationInterface {
  name = 'LedgerOpsOutboxView1765900000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const sql of opsMessagingViewsDdl(s, { inbox: false })) await q.query(sql);
    await q.query(grantOpsViewsSql(s, OPS_OUTBOX_VIEWS));
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const view of OPS_OUTBOX_VIEWS) await q.query(`DROP VIEW "${s}".${view}`);
  }
}
