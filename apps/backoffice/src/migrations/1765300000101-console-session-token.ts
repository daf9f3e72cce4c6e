import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A console session signed in with OPS_TOKEN keeps a fingerprint of that token (decision 178):
 * rotating OPS_TOKEN ends those sessions. Existing rows have none, so they end at once.
 */
export class ConsoleSessionToken1765300000101 implements MigrationInterface {
  name = 'ConsoleSessionToken1765300000101';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`ALTER TABLE "${s}".console_sessions ADD COLUMN ops_token_fingerprint text`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`ALTER TABLE "${s}".console_sessions DROP COLUMN ops_token_fingerprint`);
  }
}
