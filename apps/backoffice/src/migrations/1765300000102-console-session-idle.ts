import { MigrationInterface, QueryRunner } from 'typeorm';

/** A console session also ends after a while unused (decision 180): when it was last used. */
export class ConsoleSessionIdle1765300000102 implements MigrationInterface {
  name = 'ConsoleSessionIdle1765300000102';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`ALTER TABLE "${s}".console_sessions ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`ALTER TABLE "${s}".console_sessions DROP COLUMN last_used_at`);
  }
}
