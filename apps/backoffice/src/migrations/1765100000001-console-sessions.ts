import { MigrationInterface, QueryRunner } from 'typeorm';

/** The console's sessions: the cookie's value is stored only as its hash (decision 154). */
export class ConsoleSessions1765100000001 implements MigrationInterface {
  name = 'ConsoleSessions1765100000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`CREATE TABLE "${s}".console_sessions (
      id_hash text PRIMARY KEY,
      operator_id text NOT NULL,
      operator_name text NOT NULL,
      operator_role text NOT NULL,
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX console_sessions_expires ON "${s}".console_sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE "${s}".console_sessions`);
  }
}
