import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { WorkQueue } from '@payments/messaging';
import type {
  DeliveryAttemptView,
  DeliveryStatus,
  DeliveryView,
  ListDeliveriesQuery,
  ReadFeedQuery,
} from '@payments/contracts';
import type { CallbackBody } from '@payments/merchant-callbacks-domain';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

/** The channel a committed change to the queue is announced on, so the delivery worker wakes at once. */
export function deliveryChannel(schema: string): string {
  return `${schema}_deliveries`;
}

export interface NewDelivery {
  eventId: string;
  body: CallbackBody;
  urlOverride: string | null;
}

/** A delivery as the worker claimed it. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  shopId: string;
  objectId: string;
  sequence: number;
  body: string;
  urlOverride: string | null;
  attempts: number;
  windowStartedAt: Date;
}

interface DeliveryRow {
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

/**
 * The queue of callbacks to merchants and their delivery log, on the shared work queue of
 * libs/messaging: rows are claimed with a lease (`next_attempt_at` moved past the HTTP call) and a
 * claim token, so the call runs outside any transaction and a crashed worker's rows come back
 * when the lease has run out. The queue keeps each object's callbacks in sequence order and each
 * shop's calls in flight under its limit.
 */
@Injectable()
export class DeliveryRepository {
  readonly table: string;
  readonly work: WorkQueue<DeliveryRow>;
  private readonly attemptsTable: string;
  private readonly headsTable: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) config: MerchantCallbacksConfig,
  ) {
    this.table = `"${config.schema}".deliveries`;
    this.attemptsTable = `"${config.schema}".delivery_attempts`;
    this.headsTable = `"${config.schema}".feed_heads`;
    this.work = new WorkQueue<DeliveryRow>(dataSource, {
      table: this.table,
      idColumn: 'id',
      orderColumn: 'position',
      ordering: { keyColumns: ['object_type', 'object_id'], sequenceColumn: 'sequence' },
      groupColumn: 'shop_id',
      channel: deliveryChannel(config.schema),
    });
  }

  /** Wakes this process's delivery worker when the caller's transaction commits. */
  notify(m: EntityManager): void {
    this.work.wake(m);
  }

  /**
   * Records one delivery per event, in the consumer's inbox transaction; the worker is woken at
   * commit. The delivery takes the next position of its shop's feed from the shop's head row, whose
   * lock is held until commit: a shop's positions commit in increasing order, so a feed reader never
   * passes a position that is still to appear (decision 101).
   */
  async insert(m: EntityManager, d: NewDelivery, now: Date): Promise<string> {
    const id = randomUUID();
    await m.query(
      `WITH head AS (
         INSERT INTO ${this.headsTable} (shop_id, last_position) VALUES ($6, 1)
         ON CONFLICT (shop_id) DO UPDATE SET last_position = ${this.headsTable}.last_position + 1
         RETURNING last_position
       )
       INSERT INTO ${this.table} (id, event_id, type, object_type, object_id, shop_id, sequence, url_override, body, status, next_attempt_at, window_started_at, created_at, updated_at, feed_position)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $10, $10, $10, head.last_position FROM head
       ON CONFLICT (event_id) DO NOTHING`,
      [
        id,
        d.eventId,
        d.body.type,
        d.body.objectType,
        d.body.objectId,
        d.body.shopId,
        d.body.sequence,
        d.urlOverride,
        JSON.stringify(d.body),
        now,
      ],
    );
    this.notify(m);
    return id;
  }

  /**
   * Claims up to `limit` due deliveries that no worker holds, in one statement: per object in
   * sequence order (a delivery waits while an earlier one of its object is pending, in flight or
   * waiting for its retry), and at most `perShop` of a shop in flight, so a shop whose endpoint
   * hangs holds only its own slots.
   */
  async claimDue(
    now: Date,
    leaseUntil: Date,
    limit: number,
    perShop: number,
    claimToken: string,
    claimedBy: string,
  ): Promise<ClaimedDelivery[]> {
    const rows = await this.work.claim({ now, leaseUntil, limit, perGroup: perShop, claimToken, claimedBy });
    return rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      shopId: r.shop_id,
      objectId: r.object_id,
      sequence: Number(r.sequence),
      body: r.body,
      urlOverride: r.url_override,
      attempts: Number(r.attempts),
      windowStartedAt: r.window_started_at,
    }));
  }

  /**
   * The common outcome in one statement: a 2xx answer ends the delivery and logs its attempt, if
   * the claim is still this one's (its lease may have run out). Answers the attempt number, or
   * null when the claim was lost and nothing was recorded.
   */
  async recordDelivered(
    id: string,
    claimToken: string,
    a: { at: Date; url: string; responseStatus: number; latencyMs: number },
    now: Date,
  ): Promise<number | null> {
    const rows: { attempt: number }[] = await this.dataSource.query(
      `WITH done AS (
         UPDATE ${this.table}
            SET status = 'delivered', attempts = attempts + 1, last_url = $3, last_response_status = $4, last_error = NULL,
                claim_token = NULL, next_attempt_at = NULL, updated_at = $6, delivered_at = $6
          WHERE id = $1 AND status = 'pending' AND claim_token = $2
         RETURNING id, attempts
       )
       INSERT INTO ${this.attemptsTable} (delivery_id, attempt, at, url, response_status, error, latency_ms)
       SELECT id, attempts, $5, $3, $4, NULL, $7 FROM done
       RETURNING attempt`,
      [id, claimToken, a.url, a.responseStatus, a.at, now, a.latencyMs],
    );
    return rows.length === 1 ? Number(rows[0].attempt) : null;
  }

  /** Locks a claimed row to record an outcome, if the claim is still this one's (its lease may have run out). */
  async lockClaimed(
    m: EntityManager,
    id: string,
    claimToken: string,
  ): Promise<{ attempts: number; windowStartedAt: Date } | null> {
    const row = await this.work.lockClaimed<{ attempts: number; window_started_at: Date }>(
      m,
      id,
      claimToken,
      'attempts, window_started_at',
    );
    return row ? { attempts: Number(row.attempts), windowStartedAt: row.window_started_at } : null;
  }

  async logAttempt(m: EntityManager, id: string, a: Omit<DeliveryAttemptView, 'at'> & { at: Date }): Promise<void> {
    await m.query(
      `INSERT INTO ${this.attemptsTable} (delivery_id, attempt, at, url, response_status, error, latency_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, a.attempt, a.at, a.url, a.responseStatus, a.error, a.latencyMs],
    );
    await m.query(
      `UPDATE ${this.table} SET attempts = $2, last_url = $3, last_response_status = $4, last_error = $5, updated_at = $6 WHERE id = $1`,
      [id, a.attempt, a.url, a.responseStatus, a.error, a.at],
    );
  }

  async finish(
    m: EntityManager,
    id: string,
    status: 'delivered' | 'failed' | 'skipped',
    now: Date,
    error?: string,
  ): Promise<void> {
    await this.work.finish(m, id, status, now, {
      next_attempt_at: null,
      delivered_at: status === 'delivered' ? now : undefined,
      last_error: error,
    });
  }

  async reschedule(m: EntityManager, id: string, at: Date, now: Date, error?: string): Promise<void> {
    await this.work.retryAt(m, id, at, now, { last_error: error });
  }

  /**
   * When the next delivery falls due that a claim could take (one waiting behind an earlier
   * delivery of its object does not count: that one's outcome wakes the worker).
   */
  nextDueAt(): Promise<Date | null> {
    return this.work.nextDueAt();
  }

  /** What waits to be delivered, for /metrics: not yet tried, tried and failed, and the oldest one's age. */
  async backlog(): Promise<{ waiting: number; retrying: number; oldestAgeSeconds: number }> {
    // Pending rows only: the partial index deliveries_due holds exactly them.
    const [row]: { waiting: number; retrying: number; age: number | null }[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE attempts = 0)::int AS waiting, count(*) FILTER (WHERE attempts > 0)::int AS retrying,
              extract(epoch FROM now() - min(created_at))::float8 AS age
         FROM ${this.table} WHERE status = 'pending'`,
    );
    return { waiting: row.waiting, retrying: row.retrying, oldestAgeSeconds: Math.max(0, row.age ?? 0) };
  }

  // Operators

  async list(q: ListDeliveriesQuery): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.shopId) add('shop_id = ?', q.shopId);
    if (q.objectId) add('object_id = ?', q.objectId);
    if (q.status) add('status = ?', q.status);
    if (q.cursor) add('position < ?', q.cursor);
    params.push(q.limit + 1);
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.table} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY position DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit);
    return {
      items: page.map(toDeliveryView),
      nextCursor: rows.length > q.limit ? String(page[page.length - 1].position) : null,
    };
  }

  async find(id: string): Promise<{ view: DeliveryView; body: string; attempts: DeliveryAttemptView[] } | null> {
    const rows: DeliveryRow[] = await this.dataSource.query(`SELECT * FROM ${this.table} WHERE id = $1`, [id]);
    if (rows.length === 0) return null;
    const attempts: {
      attempt: number;
      at: Date;
      url: string;
      response_status: number | null;
      error: string | null;
      latency_ms: number;
    }[] = await this.dataSource.query(`SELECT * FROM ${this.attemptsTable} WHERE delivery_id = $1 ORDER BY attempt`, [
      id,
    ]);
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
    const where: string[] = [`NOT ${WorkQueue.inFlight('d', '$1')}`];
    const params: unknown[] = [now];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.ids) add('id = ANY(?::uuid[])', filter.ids);
    if (filter.shopId) add('shop_id = ?', filter.shopId);
    if (filter.status) add('status = ?', filter.status);
    if (filter.since) add('created_at >= ?', filter.since);
    params.push(limit);
    const rows: { id: string }[] = await m.query(
      `WITH target AS (
         SELECT id FROM ${this.table} d WHERE ${where.join(' AND ')} ORDER BY position LIMIT $${params.length} FOR UPDATE SKIP LOCKED
       ), replayed AS (
         UPDATE ${this.table} d SET status = 'pending', next_attempt_at = $1, window_started_at = $1, claim_token = NULL, updated_at = $1
           FROM target WHERE d.id = target.id RETURNING d.id, d.position
       )
       SELECT id FROM replayed ORDER BY position`,
      params,
    );
    this.notify(m);
    return rows.map((r) => r.id);
  }

  // The merchant's events feed

  /**
   * A shop's deliveries after a feed position, oldest first, optionally of one object type or one
   * object; one more than `limit` is read to know whether more follow.
   */
  async feed(q: ReadFeedQuery): Promise<{ rows: FeedRow[]; hasMore: boolean }> {
    const params: unknown[] = [q.shopId, q.afterPosition];
    const where = ['d.shop_id = $1', 'd.feed_position > $2'];
    if (q.objectType) where.push(`d.object_type = $${params.push(q.objectType)}`);
    if (q.objectId) where.push(`d.object_id = $${params.push(q.objectId)}`);
    params.push(q.limit + 1);
    const rows: FeedRow[] = await this.dataSource.query(
      // Ordered by the column, not the text it is answered as ("10" sorts before "9").
      `SELECT d.feed_position::text AS feed_position, d.event_id, d.type, d.object_type, d.object_id, d.sequence, d.body
         FROM ${this.table} d WHERE ${where.join(' AND ')} ORDER BY d.feed_position LIMIT $${params.length}`,
      params,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /**
   * Deletes up to `batch` deliveries recorded before `before` that are no longer pending, with
   * their attempts; rows another instance is deleting are skipped. Answers how many went.
   */
  async purge(before: Date, batch: number): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const rows: { id: string }[] = await m.query(
        `SELECT id FROM ${this.table} WHERE created_at < $1 AND status <> 'pending' ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [before, batch],
      );
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      await m.query(`DELETE FROM ${this.attemptsTable} WHERE delivery_id = ANY($1::uuid[])`, [ids]);
      await m.query(`DELETE FROM ${this.table} WHERE id = ANY($1::uuid[])`, [ids]);
      return ids.length;
    });
  }
}

export interface FeedRow {
  feed_position: string;
  event_id: string;
  type: string;
  object_type: string;
  object_id: string;
  sequence: number;
  body: string;
}
