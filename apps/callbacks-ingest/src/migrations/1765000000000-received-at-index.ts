import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reconciliation reads the provider callbacks of its look-back only (received_at within
 * RECONCILIATION_LOOKBACK_DAYS, decision 107): this index lets it read those, not the whole table.
 * Built CONCURRENTLY (outside a transaction) so that storing callbacks is not blocked meanwhile; a
 * build that was interrupted leaves an invalid index, dropped and built again here.
 */
export class ReceivedAtIndex1765000000000 implements MigrationInterface {
  name = 'ReceivedAtIndex1765000000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    const [invalid] = await q.query(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = 'provider_callbacks_received_at' AND NOT i.indisvalid`,
      [s],
    );
    if (invalid) await q.query(`DROP INDEX CONCURRENTLY "${s}".provider_callbacks_received_at`);
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS provider_callbacks_received_at ON "${s}".provider_callbacks (received_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS "${s}".provider_callbacks_received_at`);
  }
}
