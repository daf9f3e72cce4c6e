import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events of the feed that are not callbacks (decision 314): the ledger's balance changes. Each
 * takes its position from the shop's `feed_heads` row as a delivery does, so the feed is one total
 * order per shop across both tables (decision 101); kept and purged as the deliveries are.
 */
export class FeedEvents1766300000314 implements MigrationInterface {
  name = 'FeedEvents1766300000314';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    for (const statement of feedEventsDdl(s)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`DROP TABLE "${s}".feed_events`);
  }
}

/** The table and its two indexes: the feed's order per shop, and the purge's age. */
function feedEventsDdl(s: string): string[] {
  return [
    `CREATE TABLE "${s}".feed_events (
       event_id uuid PRIMARY KEY, type text NOT NULL, object_type text NOT NULL, object_id uuid NOT NULL,
       shop_id uuid NOT NULL, sequence int NOT NULL, body text NOT NULL, feed_position bigint NOT NULL,
       created_at timestamptz NOT NULL
     )`,
    `CREATE UNIQUE INDEX feed_events_feed ON "${s}".feed_events (shop_id, feed_position)`,
    `CREATE INDEX feed_events_created ON "${s}".feed_events (created_at)`,
  ];
}
