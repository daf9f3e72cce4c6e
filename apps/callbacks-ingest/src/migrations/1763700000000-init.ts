import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

export class Init1763700000000 implements MigrationInterface {
  name = 'Init1763700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`
      CREATE TABLE "${s}".provider_callbacks (
        id uuid PRIMARY KEY,
        provider_code text NOT NULL,
        provider_event_id text NOT NULL,
        reference text NOT NULL,
        raw_body text NOT NULL,
        signature_timestamp bigint NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT provider_callbacks_once UNIQUE (provider_code, provider_event_id)
      )`);
    await q.query(`CREATE INDEX provider_callbacks_reference ON "${s}".provider_callbacks (reference)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`DROP TABLE "${s}".provider_callbacks`);
  }
}
