import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReadFeedQuery } from '@payments/contracts';
import type { BalanceBody } from '@payments/merchant-callbacks-domain';
import { join, type Sql, sql } from '@payments/sql';
import { deliveryTables, type DeliveryTables } from '../deliver/delivery-tables';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

export interface FeedRow {
  feed_position: string;
  event_id: string;
  type: string;
  object_type: string;
  object_id: string;
  sequence: number;
  body: string;
}

/**
 * The merchant's events feed over the deliveries (decision 101) and the events that are no
 * callbacks, the balance changes (`feed_events`, decision 314), and its retention.
 */
@Injectable()
export class FeedRepository {
  private readonly t: DeliveryTables;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) config: MerchantCallbacksConfig,
  ) {
    this.t = deliveryTables(config.schema);
  }

  /**
   * A shop's events after a feed position, oldest first, optionally of one object type or one
   * object; one more than `limit` is read to know whether more follow. Both tables take their
   * positions from the one counter of the shop, so their union is the shop's one order.
   */
  async feed(q: ReadFeedQuery): Promise<{ rows: FeedRow[]; hasMore: boolean }> {
    const from = (table: Sql) => {
      const conditions: Sql[] = [sql`e.shop_id = ${q.shopId}`, sql`e.feed_position > ${q.afterPosition}`];
      if (q.objectType) conditions.push(sql`e.object_type = ${q.objectType}`);
      if (q.objectId) conditions.push(sql`e.object_id = ${q.objectId}`);
      // Each side through its (shop_id, feed_position) index, at most limit + 1 rows.
      return sql`(SELECT e.feed_position, e.event_id, e.type, e.object_type, e.object_id, e.sequence, e.body
         FROM ${table} e WHERE ${join(conditions, ' AND ')} ORDER BY e.feed_position LIMIT ${q.limit + 1})`;
    };
    // Ordered by the column, not the text it is answered as ("10" sorts before "9").
    const statement = sql`SELECT f.feed_position::text AS feed_position, f.event_id, f.type, f.object_type, f.object_id, f.sequence, f.body
         FROM (${from(this.t.deliveries)} UNION ALL ${from(this.t.feedEvents)}) f
        ORDER BY f.feed_position LIMIT ${q.limit + 1}`;
    const rows: FeedRow[] = await this.dataSource.query(statement.text, statement.values);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /**
   * Records balance events on the feed (decision 314), only those whose event id `inbox` (an
   * `Inbox.cte` named `ib`) returned, in one statement: each shop's feed head is bumped by its
   * count of new events, which take the positions below it in the order given, the head's lock held
   * until commit as a delivery's recording holds it (decision 101). Answers the event ids recorded.
   */
  async insertEvents(events: readonly BalanceBody[], inbox: Sql, now: Date): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const statement = sql`WITH ${inbox}, v AS (
         SELECT * FROM unnest(${events.map((e) => e.eventId)}::uuid[], ${events.map((e) => e.type)}::text[],
                              ${events.map((e) => e.objectType)}::text[], ${events.map((e) => e.objectId)}::uuid[],
                              ${events.map((e) => e.shopId)}::uuid[], ${events.map((e) => e.sequence)}::int[],
                              ${events.map((e) => JSON.stringify(e))}::text[])
           WITH ORDINALITY AS v(event_id, type, object_type, object_id, shop_id, sequence, body, n)
          WHERE v.event_id IN (SELECT event_id FROM ib)
       ), counts AS (
         SELECT shop_id, count(*) AS n FROM v GROUP BY shop_id
       ), head AS (
         INSERT INTO ${this.t.feedHeads} AS f (shop_id, last_position) SELECT shop_id, n FROM counts ORDER BY shop_id
         ON CONFLICT (shop_id) DO UPDATE SET last_position = f.last_position + EXCLUDED.last_position
         RETURNING shop_id, last_position
       ), added AS (
         INSERT INTO ${this.t.feedEvents} (event_id, type, object_type, object_id, shop_id, sequence, body, feed_position, created_at)
         SELECT v.event_id, v.type, v.object_type, v.object_id, v.shop_id, v.sequence, v.body,
                head.last_position - c.n + row_number() OVER (PARTITION BY v.shop_id ORDER BY v.n), ${now}
           FROM v JOIN counts c ON c.shop_id = v.shop_id JOIN head ON head.shop_id = v.shop_id
          ORDER BY v.n
         ON CONFLICT (event_id) DO NOTHING
         RETURNING event_id
       )
       SELECT event_id::text AS event_id FROM added`;
    const rows: { event_id: string }[] = await this.dataSource.query(statement.text, statement.values);
    return new Set(rows.map((r) => r.event_id));
  }

  /**
   * Deletes up to `batch` deliveries recorded before `before` that are no longer pending, with
   * their attempts, and up to `batch` balance events as old; rows another instance is deleting
   * are skipped. Answers how many went.
   */
  async purge(before: Date, batch: number): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const old = sql`SELECT id FROM ${this.t.deliveries} WHERE created_at < ${before} AND status <> 'pending'
        ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
      const rows: { id: string }[] = await m.query(old.text, old.values);
      const events = sql`WITH gone AS (DELETE FROM ${this.t.feedEvents} WHERE event_id IN (SELECT event_id FROM ${this.t.feedEvents}
        WHERE created_at < ${before} ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED) RETURNING event_id)
        SELECT count(*)::int AS n FROM gone`;
      const [{ n: purgedEvents }]: { n: number }[] = await m.query(events.text, events.values);
      if (rows.length === 0) return purgedEvents;
      const ids = rows.map((r) => r.id);
      const attempts = sql`DELETE FROM ${this.t.attempts} WHERE delivery_id = ANY(${ids}::uuid[])`;
      await m.query(attempts.text, attempts.values);
      const deliveries = sql`DELETE FROM ${this.t.deliveries} WHERE id = ANY(${ids}::uuid[])`;
      await m.query(deliveries.text, deliveries.values);
      return ids.length + purgedEvents;
    });
  }
}
