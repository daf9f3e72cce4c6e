import { MigrationInterface, QueryRunner } from 'typeorm';

/** The reconciliation's breaches (one row per invariant and subject) and its runs (issue 17 item 4). */
export class Reconciliation1764317400000 implements MigrationInterface {
  name = 'Reconciliation1764317400000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`
      CREATE TABLE "${s}".reconciliation_breaches (
        invariant text NOT NULL,
        subject text NOT NULL,
        detail text NOT NULL,
        since timestamptz NOT NULL,
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        resolved_at timestamptz,
        PRIMARY KEY (invariant, subject)
      )`);
    await q.query(
      `CREATE INDEX reconciliation_breaches_open ON "${s}".reconciliation_breaches (since) WHERE resolved_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE "${s}".reconciliation_runs (
        id bigserial PRIMARY KEY,
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        duration_ms int NOT NULL,
        checked jsonb NOT NULL,
        breaches int NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE "${s}".reconciliation_runs`);
    await q.query(`DROP TABLE "${s}".reconciliation_breaches`);
  }
}
