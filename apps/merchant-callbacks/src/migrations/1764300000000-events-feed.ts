import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The merchant's events feed is read from the deliveries: each gets a position in its shop's one
 * total order (`feed_position`), taken from a per-shop counter row whose lock is held until the
 * recording transaction commits, so positions of a shop become visible in increasing order and a
 * reader paging "after N" never skips one that commits late (decision 101). Existing deliveries
 * are numbered in the order they were recorded.
 */
export class EventsFeed1764300000000 implements MigrationInterface {
  name = 'EventsFeed1764300000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`
      CREATE TABLE "${s}".feed_heads (
        shop_id uuid PRIMARY KEY,
        last_position bigint NOT NULL
      )`);
    await q.query(`ALTER TABLE "${s}".deliveries ADD COLUMN feed_position bigint`);
    await q.query(`
      UPDATE "${s}".deliveries d SET feed_position = n.rn
        FROM (SELECT id, row_number() OVER (PARTITION BY shop_id ORDER BY position) AS rn FROM "${s}".deliveries) n
       WHERE d.id = n.id`);
    await q.query(`
      INSERT INTO "${s}".feed_heads (shop_id, last_position)
      SELECT shop_id, max(feed_position) FROM "${s}".deliveries GROUP BY shop_id`);
    await q.query(`ALTER TABLE "${s}".deliveries ALTER COLUMN feed_position SET NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX deliveries_feed ON "${s}".deliveries (shop_id, feed_position)`);
    await q.query(`CREATE INDEX deliveries_created ON "${s}".deliveries (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`DROP INDEX "${s}".deliveries_created`);
    await q.query(`DROP INDEX "${s}".deliveries_feed`);
    await q.query(`ALTER TABLE "${s}".deliveries DROP COLUMN feed_position`);
    await q.query(`DROP TABLE "${s}".feed_heads`);
  }
}
