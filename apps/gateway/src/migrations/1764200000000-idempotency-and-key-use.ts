import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyAndKeyUse1764200000000 implements MigrationInterface {
  name = 'IdempotencyAndKeyUse1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    // One row per (shop, Idempotency-Key): the first request's fingerprint and, once it is done,
    // its answer. `started_at` tells a request still running from one whose gateway died.
    await q.query(`
      CREATE TABLE "${s}".idempotency_keys (
        shop_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        method text NOT NULL,
        route text NOT NULL,
        body_sha256 text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status int,
        response_headers jsonb,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        PRIMARY KEY (shop_id, idempotency_key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_at ON "${s}".idempotency_keys (created_at)`);
    await q.query(`ALTER TABLE "${s}".api_keys ADD COLUMN last_used_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".api_keys DROP COLUMN last_used_at`);
    await q.query(`DROP TABLE "${s}".idempotency_keys`);
  }
}
