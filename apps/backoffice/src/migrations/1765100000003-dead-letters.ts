import { MigrationInterface, QueryRunner } from 'typeorm';

/** The dead letters of every `.dlq` topic, copied for operators, with what was done to each (decision 156). */
export class DeadLetters1765100000003 implements MigrationInterface {
  name = 'DeadLetters1765100000003';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`CREATE TABLE "${s}".dead_letters (
      id bigserial PRIMARY KEY,
      topic text NOT NULL,
      partition int NOT NULL,
      "offset" text NOT NULL,
      original_topic text NOT NULL,
      key text,
      envelope jsonb,
      raw text,
      error text NOT NULL,
      consumer_group text,
      attempts int NOT NULL DEFAULT 0,
      dead_lettered_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'redriven', 'discarded')),
      resolved_at timestamptz,
      resolved_by text,
      reason text,
      UNIQUE (topic, partition, "offset")
    )`);
    await q.query(`CREATE INDEX dead_letters_open ON "${s}".dead_letters (status, topic, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE "${s}".dead_letters`);
  }
}
