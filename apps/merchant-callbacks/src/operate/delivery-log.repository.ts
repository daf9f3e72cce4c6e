import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DeliveryAttemptView, DeliveryStatus, DeliveryView, ListDeliveriesQuery } from '@payments/contracts';
import { join, param, type Sql, sql } from '@payments/sql';
import { WorkQueue } from '@payments/messaging';
import { DeliveryRepository } from '../deliver/delivery.repository';
import { deliveryTables, type DeliveryTables } from '../deliver/delivery-tables';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

/** A deliveries row as operators read it. */
export interface DeliveryRow {
  id: string;
  position: string;
  event_id: string;
  type: string;
  object_type: string;
  object_id: string;
  shop_id: string;
  sequence: number;
  url_override: string | null;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  window_started_at: Date;
  claim_token: string | null;
  last_url: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

export function toDeliveryView(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    eventId: r.event_id,
    type: r.type,
    objectType: r.object_type,
    objectId: r.object_id,
    shopId: r.shop_id,
    sequence: Number(r.sequence),
    status: r.status,
    url: r.last_url ?? r.url_override,
    attempts: Number(r.attempts),
    lastResponseStatus: r.last_response_status,
    lastError: r.last_error,
    nextAttemptAt: r.status === 'pending' && r.next_attempt_at ? r.next_attempt_at.toISOString() : null,
    createdAt: r.created_at.toISOString(),
    deliveredAt: r.delivered_at ? r.delivered_at.toISOString() : null,
  };
}

/** `WHERE` with the conditions given, or nothing. */
function where(conditions: readonly Sql[]): Sql {
  return conditions.length ? sql`WHERE ${join(conditions, ' AND ')}` : sql``;
}

/** The delivery log for operators: its pages, one delivery with its attempts, and replays. */
@Injectable()
export class DeliveryLogRepository {
  private readonly t: DeliveryTables;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) config: MerchantCallbacksConfig,
    private readonly queue: DeliveryRepository,
  ) {
    this.t = deliveryTables(config.schema);
  }

  async list(q: ListDeliveriesQuery): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
    const conditions: Sql[] = [];
    if (q.shopId) conditions.push(sql`shop_id = ${q.shopId}`);
    if (q.objectId) conditions.push(sql`object_id = ${q.objectId}`);
    if (q.status) conditions.push(sql`status = ${q.status}`);
    if (q.cursor) conditions.push(sql`position < ${q.cursor}`);
    const statement = sql`SELECT * FROM ${this.t.deliveries} ${where(conditions)} ORDER BY position DESC LIMIT ${q.limit + 1}`;
    const rows: DeliveryRow[] = await this.dataSource.query(statement.text, statement.values);
    const page = rows.slice(0, q.limit);
    return {
      items: page.map(toDeliveryView),
      nextCursor: rows.length > q.limit ? String(page[page.length - 1].position) : null,
    };
  }

  async find(id: string): Promise<{ view: DeliveryView; body: string; attempts: DeliveryAttemptView[] } | null> {
    const delivery = sql`SELECT * FROM ${this.t.deliveries} WHERE id = ${id}`;
    const rows: DeliveryRow[] = await this.dataSource.query(delivery.text, delivery.values);
    if (rows.length === 0) return null;
    const log = sql`SELECT * FROM ${this.t.attempts} WHERE delivery_id = ${id} ORDER BY attempt`;
    const attempts: {
      attempt: number;
      at: Date;
      url: string;
      response_status: number | null;
      error: string | null;
      latency_ms: number;
    }[] = await this.dataSource.query(log.text, log.values);
    return {
      view: toDeliveryView(rows[0]),
      body: rows[0].body,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        at: a.at.toISOString(),
        url: a.url,
        responseStatus: a.response_status,
        error: a.error,
        latencyMs: a.latency_ms,
      })),
    };
  }

  /**
   * Queues deliveries again, due now, with a fresh retry window; the body (and so the eventId)
   * stays the same. A delivery in flight right now is left alone. Answers the ids replayed.
   */
  async replay(
    m: EntityManager,
    filter: { ids?: string[]; shopId?: string; status?: DeliveryStatus; since?: Date },
    now: Date,
    limit: number,
  ): Promise<string[]> {
    const at = param(now);
    const conditions: Sql[] = [sql`NOT ${WorkQueue.inFlight('d', at)}`];
    if (filter.ids) conditions.push(sql`id = ANY(${filter.ids}::uuid[])`);
    if (filter.shopId) conditions.push(sql`shop_id = ${filter.shopId}`);
    if (filter.status) conditions.push(sql`status = ${filter.status}`);
    if (filter.since) conditions.push(sql`created_at >= ${filter.since}`);
    const statement = sql`WITH target AS (
         SELECT id FROM ${this.t.deliveries} d ${where(conditions)} ORDER BY position LIMIT ${limit} FOR UPDATE SKIP LOCKED
       ), replayed AS (
         UPDATE ${this.t.deliveries} d SET status = 'pending', next_attempt_at = ${at}, window_started_at = ${at}, claim_token = NULL, updated_at = ${at}
           FROM target WHERE d.id = target.id RETURNING d.id, d.position, d.object_type, d.object_id
       )
       SELECT id, object_type, object_id FROM replayed ORDER BY position`;
    const rows: { id: string; object_type: string; object_id: string }[] = await m.query(
      statement.text,
      statement.values,
    );
    // The replayed deliveries may now come first in their objects' queues.
    if (rows.length > 0)
      await this.queue.setHeads(
        m,
        rows.map((r) => ({ objectType: r.object_type, objectId: r.object_id })),
      );
    this.queue.notify(m);
    return rows.map((r) => r.id);
  }
}
