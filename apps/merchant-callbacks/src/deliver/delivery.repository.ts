import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { wakeAfterCommit } from '@payments/messaging';
import type { DeliveryAttemptView, DeliveryStatus, DeliveryView, ListDeliveriesQuery } from '@payments/contracts';
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
 * The queue of callbacks to merchants and their delivery log. Rows are claimed with a lease
 * (`next_attempt_at` moved past the HTTP call) and a claim token, so the call runs outside any
 * transaction and a crashed worker's rows come back when the lease has run out.
 */
@Injectable()
export class DeliveryRepository {
  readonly table: string;
  private readonly attemptsTable: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {
    this.table = `"${config.schema}".deliveries`;
    this.attemptsTable = `"${config.schema}".delivery_attempts`;
  }

  /** Wakes this process's delivery worker when the caller's transaction commits. */
  notify(m: EntityManager): void {
    wakeAfterCommit(m, deliveryChannel(this.config.schema));
  }

  /** Records one delivery per event, in the consumer's inbox transaction; the worker is woken at commit. */
  async insert(m: EntityManager, d: NewDelivery, now: Date): Promise<string> {
    const id = randomUUID();
    await m.query(
      `INSERT INTO ${this.table} (id, event_id, type, object_type, object_id, shop_id, sequence, url_override, body, status, next_attempt_at, window_started_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $10, $10, $10)
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
   * Claims up to `limit` due deliveries that no worker holds (FOR UPDATE SKIP LOCKED), in one
   * statement, with two rules:
   * - per object, sequence order: a delivery waits while an earlier one of the same object is
   *   still pending (in flight or waiting for its retry);
   * - per shop, at most `perShop` in flight, counting those already claimed, so a shop whose
   *   endpoint hangs holds only its own slots.
   */
  async claimDue(
    now: Date,
    leaseUntil: Date,
    limit: number,
    perShop: number,
    claimToken: string,
    claimedBy: string,
  ): Promise<ClaimedDelivery[]> {
    const t = this.table;
    // The outer statement is a SELECT: TypeORM answers an UPDATE ... RETURNING as [rows, count].
    const rows: DeliveryRow[] = await this.dataSource.query(
      `WITH inflight AS (
         SELECT shop_id, count(*)::int AS n FROM ${t}
          WHERE status = 'pending' AND claim_token IS NOT NULL AND next_attempt_at > $1
          GROUP BY shop_id
       ), ready AS (
         SELECT d.id, d.shop_id, d.next_attempt_at, d.position,
                row_number() OVER (PARTITION BY d.shop_id ORDER BY d.next_attempt_at, d.position) AS rn
           FROM ${t} d
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1
            AND NOT EXISTS (
              SELECT 1 FROM ${t} e
               WHERE e.status = 'pending' AND e.object_type = d.object_type AND e.object_id = d.object_id
                 AND (e.sequence < d.sequence OR (e.sequence = d.sequence AND e.position < d.position)))
       ), picked AS (
         SELECT r.id FROM ready r LEFT JOIN inflight i ON i.shop_id = r.shop_id
          WHERE r.rn + COALESCE(i.n, 0) <= $2
          ORDER BY r.next_attempt_at, r.position
          LIMIT $3
       ), locked AS (
         SELECT d.id FROM ${t} d
          WHERE d.id IN (SELECT id FROM picked) AND d.status = 'pending' AND d.next_attempt_at <= $1
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE ${t} d
            SET next_attempt_at = $4, claim_token = $5, claimed_by = $6, updated_at = $1
           FROM locked
          WHERE d.id = locked.id
         RETURNING d.*
       )
       SELECT * FROM claimed ORDER BY position`,
      [now, perShop, limit, leaseUntil, claimToken, claimedBy],
    );
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
   * null when the claim was lost and nothing was recorded. Wakes the worker (the object's next
   * callback may go now).
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
    this.notify(this.dataSource.manager);
    return rows.length === 1 ? Number(rows[0].attempt) : null;
  }

  /** Locks a claimed row to record an outcome, if the claim is still this one's (its lease may have run out). */
  async lockClaimed(
    m: EntityManager,
    id: string,
    claimToken: string,
  ): Promise<{ attempts: number; windowStartedAt: Date } | null> {
    const rows: { attempts: number; window_started_at: Date }[] = await m.query(
      `SELECT attempts, window_started_at FROM ${this.table} WHERE id = $1 AND status = 'pending' AND claim_token = $2 FOR UPDATE`,
      [id, claimToken],
    );
    return rows.length === 1
      ? { attempts: Number(rows[0].attempts), windowStartedAt: rows[0].window_started_at }
      : null;
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
    await m.query(
      `UPDATE ${this.table}
          SET status = $2, claim_token = NULL, next_attempt_at = NULL, updated_at = $3,
              delivered_at = CASE WHEN $2 = 'delivered' THEN $3 ELSE delivered_at END,
              last_error = COALESCE($4, last_error)
        WHERE id = $1`,
      [id, status, now, error ?? null],
    );
    this.notify(m);
  }

  async reschedule(m: EntityManager, id: string, at: Date, now: Date, error?: string): Promise<void> {
    await m.query(
      `UPDATE ${this.table} SET next_attempt_at = $2, claim_token = NULL, updated_at = $3, last_error = COALESCE($4, last_error) WHERE id = $1`,
      [id, at, now, error ?? null],
    );
    this.notify(m);
  }

  /**
   * When the next delivery that could be claimed falls due: unclaimed, and not waiting behind an
   * earlier one of its object (that one's outcome wakes the worker).
   */
  async nextDueAt(): Promise<Date | null> {
    const t = this.table;
    const rows: { at: Date | null }[] = await this.dataSource.query(
      `SELECT min(d.next_attempt_at) AS at FROM ${t} d
        WHERE d.status = 'pending' AND d.claim_token IS NULL
          AND NOT EXISTS (SELECT 1 FROM ${t} e WHERE e.status = 'pending' AND e.object_type = d.object_type AND e.object_id = d.object_id AND e.sequence < d.sequence)`,
    );
    return rows[0]?.at ?? null;
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
    const where: string[] = [`NOT (status = 'pending' AND claim_token IS NOT NULL AND next_attempt_at > $1)`];
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
         SELECT id FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY position LIMIT $${params.length} FOR UPDATE SKIP LOCKED
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
}
