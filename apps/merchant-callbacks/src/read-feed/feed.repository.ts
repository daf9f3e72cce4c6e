import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReadFeedQuery } from '@payments/contracts';
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

/** The merchant's events feed over the deliveries (decision 101), and its retention. */
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
   * A shop's deliveries after a feed position, oldest first, optionally of one object type or one
   * object; one more than `limit` is read to know whether more follow.
   */
  async feed(q: ReadFeedQuery): Promise<{ rows: FeedRow[]; hasMore: boolean }> {
    const conditions: Sql[] = [sql`d.shop_id = ${q.shopId}`, sql`d.feed_position > ${q.afterPosition}`];
    if (q.objectType) conditions.push(sql`d.object_type = ${q.objectType}`);
    if (q.objectId) conditions.push(sql`d.object_id = ${q.objectId}`);
    // Ordered by the column, not the text it is answered as ("10" sorts before "9").
    const statement = sql`SELECT d.feed_position::text AS feed_position, d.event_id, d.type, d.object_type, d.object_id, d.sequence, d.body
         FROM ${this.t.deliveries} d WHERE ${join(conditions, ' AND ')} ORDER BY d.feed_position LIMIT ${q.limit + 1}`;
    const rows: FeedRow[] = await this.dataSource.query(statement.text, statement.values);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /**
   * Deletes up to `batch` deliveries recorded before `before` that are no longer pending, with
   * their attempts; rows another instance is deleting are skipped. Answers how many went.
   */
  async purge(before: Date, batch: number): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const old = sql`SELECT id FROM ${this.t.deliveries} WHERE created_at < ${before} AND status <> 'pending'
        ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
      const rows: { id: string }[] = await m.query(old.text, old.values);
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      const attempts = sql`DELETE FROM ${this.t.attempts} WHERE delivery_id = ANY(${ids}::uuid[])`;
      await m.query(attempts.text, attempts.values);
      const deliveries = sql`DELETE FROM ${this.t.deliveries} WHERE id = ANY(${ids}::uuid[])`;
      await m.query(deliveries.text, deliveries.values);
      return ids.length;
    });
  }
}
