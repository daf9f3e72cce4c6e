import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

/**
 * One delivery per consumed status-change event, the log of every HTTP attempt, and this
 * service's copy of each shop's callback URL and secret (from `shops.settings`).
 */
export class Init1764200000000 implements MigrationInterface {
  name = 'Init1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`
      CREATE TABLE "${s}".shops (
        shop_id uuid PRIMARY KEY,
        version int NOT NULL,
        callback_url text,
        callback_secret text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "${s}".deliveries (
        id uuid PRIMARY KEY,
        position bigserial NOT NULL UNIQUE,
        event_id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        object_type text NOT NULL,
        object_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        sequence int NOT NULL,
        url_override text,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        window_started_at timestamptz NOT NULL,
        claim_token uuid,
        claimed_by text,
        last_url text,
        last_response_status int,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        CONSTRAINT deliveries_status CHECK (status IN ('pending','delivered','failed','skipped'))
      )`);
    await q.query(`CREATE INDEX deliveries_due ON "${s}".deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(
      `CREATE INDEX deliveries_object_pending ON "${s}".deliveries (object_type, object_id, sequence) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX deliveries_shop ON "${s}".deliveries (shop_id, position)`);
    await q.query(`CREATE INDEX deliveries_object ON "${s}".deliveries (object_id, position)`);
    await q.query(`
      CREATE TABLE "${s}".delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES "${s}".deliveries(id),
        attempt int NOT NULL,
        at timestamptz NOT NULL,
        url text NOT NULL,
        response_status int,
        error text,
        latency_ms int NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`DROP TABLE "${s}".delivery_attempts`);
    await q.query(`DROP TABLE "${s}".deliveries`);
    await q.query(`DROP TABLE "${s}".shops`);
  }
}
