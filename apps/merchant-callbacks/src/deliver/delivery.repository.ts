import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { WorkQueue, type WorkQueueTable } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { param, raw, type Sql, sql } from '@payments/sql';
import type {
  DeliveryAttemptView,
  DeliveryStatus,
  DeliveryView,
  ListDeliveriesQuery,
  ReadFeedQuery,
} from '@payments/contracts';
import type { CallbackBody } from '@payments/merchant-callbacks-domain';
import type { ShopCallbackSettings } from '../shop-settings/shop-callback-settings.repository';
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

/** An order, payout or P2P transaction: the deliveries of one object go out in sequence order. */
export interface ObjectKey {
  objectType: string;
  objectId: string;
}

/** A delivery as the worker claimed it, with its shop's callback settings at the claim. */
export interface ClaimedDelivery extends ObjectKey {
  id: string;
  eventId: string;
  shopId: string;
  sequence: number;
  body: string;
  urlOverride: string | null;
  attempts: number;
  windowStartedAt: Date;
  shop: ShopCallbackSettings;
}

/**
 * What becomes of a claimed delivery: its new status (`pending` again with its next attempt's
 * time, or final), the error to show, and the HTTP attempt to log when one was made.
 */
export interface DeliveryOutcome extends ObjectKey {
  id: string;
  claimToken: string;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  error: string | null;
  attempt: { number: number; at: Date; url: string; responseStatus: number | null; latencyMs: number } | null;
}

interface ClaimRow {
  object_type: string;
  object_id: string;
  id: string | null;
  event_id: string;
  shop_id: string;
  sequence: number;
  body: string;
  url_override: string | null;
  attempts: number;
  window_started_at: Date;
  shop_known: boolean;
  callback_url: string | null;
  callback_secret: string | null;
  previous_callback_secret: string | null;
  previous_callback_secret_expires_at: Date | null;
}

/**
 * The delivery queue on the shared work queue of libs/messaging (its channel, `inFlight`), with
 * the next due time read from the heads: their index answers it without reading the backlog.
 */
export class DeliveryQueue extends WorkQueue<DeliveryRow> {
  constructor(
    private readonly ds: DataSource,
    private readonly headsTable: string,
    t: WorkQueueTable,
  ) {
    super(ds, t);
  }

  override async nextDueAt(): Promise<Date | null> {
    // A head due at 'infinity' (a pending delivery without a time) is never due: node-postgres would answer Infinity.
    const rows: { at: Date | null }[] = await this.ds.query(
      `SELECT min(due_at) FILTER (WHERE due_at <> 'infinity') AS at FROM ${this.headsTable}`,
    );
    return rows[0]?.at ?? null;
  }
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
 * transaction and a crashed worker's rows come back when the lease has run out. Only the head of
 * each object's queue (`delivery_heads`: its lowest pending sequence) can be claimed, which keeps
 * each object's callbacks in sequence order and the claim's cost independent of the backlog
 * (decision 199); each shop's calls in flight stay under its limit.
 */
@Injectable()
export class DeliveryRepository {
  private readonly logger = new Logger(DeliveryRepository.name);
  readonly table: string;
  readonly work: DeliveryQueue;
  private readonly attemptsTable: string;
  private readonly headsTable: string;
  private readonly dueTable: string;
  private readonly shopsTable: string;
  /** Serializes the claims of every instance (see claimDue): a transaction-scoped advisory lock. */
  private readonly claimLock: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) config: MerchantCallbacksConfig,
  ) {
    this.claimLock = BigInt.asIntN(
      64,
      BigInt('0x' + createHash('sha256').update(`deliveries-claim:${config.schema}`).digest('hex').slice(0, 16)),
    ).toString();
    this.table = `"${config.schema}".deliveries`;
    this.attemptsTable = `"${config.schema}".delivery_attempts`;
    this.headsTable = `"${config.schema}".feed_heads`;
    this.dueTable = `"${config.schema}".delivery_heads`;
    this.shopsTable = `"${config.schema}".shops`;
    this.work = new DeliveryQueue(dataSource, this.dueTable, {
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
   * Records one delivery per event seen for the first time, with the events' inbox rows, in ONE
   * statement (decisions 233, 243): `inbox` (an `Inbox.cte` named `ib`, numbered from $11)
   * records the batch's event ids and only the deliveries whose id it returned are written. It
   * commits on its own, or with the transaction of `m` when given (specs stage races that way);
   * the worker is woken at commit. The events must be distinct, in the order they were consumed. Each shop's feed head (`feed_heads.last_position`) is bumped once by its count
   * of new deliveries, which take the positions below it in that order; the head rows' locks
   * are taken in shop order and held until commit, so positions of a shop become visible in
   * increasing order and a feed reader never passes a position still to appear (decision 101),
   * and two batches sharing shops wait for each other rather than deadlock. Each object's
   * earliest new delivery (lowest sequence, then position) becomes its head when the object has
   * none pending or it comes before the head; the head's version is bumped either way, so an
   * outcome recorded meanwhile does not move it blindly (see recordOutcomes). An upsert cannot
   * touch one row twice, hence one proposed head per object (decision 233).
   * Answers the delivery id of each event id recorded (lower case).
   */
  async insertFresh(
    batch: readonly NewDelivery[],
    inbox: Sql,
    now: Date,
    m: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, string>> {
    if (batch.length === 0) return new Map();
    const ids = batch.map(() => randomUUID());
    const statement = this.insertStatement(batch, ids, now, inbox);
    const rows = await preparedQuery<{ event_id: string }>(m, statement.text, statement.values);
    const fresh = new Set(rows.map((r) => r.event_id));
    const recorded = new Map<string, string>();
    batch.forEach((d, i) => {
      const eventId = d.eventId.toLowerCase();
      if (fresh.has(eventId)) recorded.set(eventId, ids[i]);
    });
    if (recorded.size > 0) this.notify(m);
    return recorded;
  }

  /** The deliveries' statement: only for the event ids `inbox` (a CTE named `ib`) returns, and answering those. */
  private insertStatement(batch: readonly NewDelivery[], ids: string[], now: Date, inbox: Sql): Sql {
    const at = param(now);
    // The head changes only for an earlier delivery; its version changes always (see recordOutcomes).
    const lower = raw('(EXCLUDED.sequence, EXCLUDED.position) < (h.sequence, h.position)');
    return sql`WITH ${inbox}, v AS (
         SELECT * FROM unnest(${ids}::uuid[], ${batch.map((d) => d.eventId)}::uuid[], ${batch.map((d) => d.body.type)}::text[],
                              ${batch.map((d) => d.body.objectType)}::text[], ${batch.map((d) => d.body.objectId)}::uuid[],
                              ${batch.map((d) => d.body.shopId)}::uuid[], ${batch.map((d) => d.body.sequence)}::int[],
                              ${batch.map((d) => d.urlOverride)}::text[], ${batch.map((d) => JSON.stringify(d.body))}::text[])
           WITH ORDINALITY AS v(id, event_id, type, object_type, object_id, shop_id, sequence, url_override, body, n)
          WHERE v.event_id IN (SELECT event_id FROM ib)
       ), counts AS (
         SELECT shop_id, count(*) AS n FROM v GROUP BY shop_id
       ), head AS (
         INSERT INTO ${raw(this.headsTable)} AS f (shop_id, last_position) SELECT shop_id, n FROM counts ORDER BY shop_id
         ON CONFLICT (shop_id) DO UPDATE SET last_position = f.last_position + EXCLUDED.last_position
         RETURNING shop_id, last_position
       ), added AS (
         INSERT INTO ${raw(this.table)} (id, event_id, type, object_type, object_id, shop_id, sequence, url_override, body, status, next_attempt_at, window_started_at, created_at, updated_at, feed_position)
         SELECT v.id, v.event_id, v.type, v.object_type, v.object_id, v.shop_id, v.sequence, v.url_override, v.body,
                'pending', ${at}, ${at}, ${at}, ${at},
                head.last_position - c.n + row_number() OVER (PARTITION BY v.shop_id ORDER BY v.n)
           FROM v JOIN counts c ON c.shop_id = v.shop_id JOIN head ON head.shop_id = v.shop_id
          ORDER BY v.n
         ON CONFLICT (event_id) DO NOTHING
         RETURNING id, object_type, object_id, shop_id, sequence, position, next_attempt_at
       ), first AS (
         SELECT DISTINCT ON (object_type, object_id) * FROM added ORDER BY object_type, object_id, sequence, position
       ), heads AS (
         INSERT INTO ${raw(this.dueTable)} AS h (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
         SELECT object_type, object_id, id, shop_id, sequence, position, next_attempt_at FROM first
          ORDER BY object_type, object_id
         ON CONFLICT (object_type, object_id) DO UPDATE
            SET version = h.version + 1,
                delivery_id = CASE WHEN ${lower} THEN EXCLUDED.delivery_id ELSE h.delivery_id END,
                shop_id = CASE WHEN ${lower} THEN EXCLUDED.shop_id ELSE h.shop_id END,
                sequence = CASE WHEN ${lower} THEN EXCLUDED.sequence ELSE h.sequence END,
                position = CASE WHEN ${lower} THEN EXCLUDED.position ELSE h.position END,
                due_at = CASE WHEN ${lower} THEN EXCLUDED.due_at ELSE h.due_at END
       )
       SELECT event_id::text AS event_id FROM ib`;
  }

  /**
   * Claims up to `limit` due deliveries that no worker holds, in one statement. It visits the
   * shops that have heads (a skip scan of the heads' shop index: one probe per shop) and, for
   * each shop with free slots (`perShop` less its calls in flight: its claimed deliveries, but
   * not the `settling` ones, whose call under that claim has ended and whose outcome is being
   * recorded — decision 236; a delivery claimed again since is in flight again), reads its oldest due heads
   * through the index, as many as it has free slots, skipping heads another claimer holds; of
   * those it takes the oldest `limit`. Only heads are read (one per object, so per object in
   * sequence order): the cost follows the shops and the deliveries taken, not the backlog. Each
   * claimed delivery comes with its shop's callback settings as they are now.
   *
   * Claims of several instances take turns: each runs in a transaction that first takes an
   * advisory lock, so its statement's snapshot — taken after the lock — sees the claims the one
   * before it committed. Without it two instances counting a shop's calls in flight at the same
   * moment each took its free slots (the fault suite's scenario j saw 7 in flight against a limit
   * of 4). Three round trips where there was one; claims are a few per second per instance
   * (decision 256).
   */
  async claimDue(
    now: Date,
    leaseUntil: Date,
    limit: number,
    perShop: number,
    claimToken: string,
    claimedBy: string,
    settling: readonly { id: string; claimToken: string }[] = [],
  ): Promise<{ claimed: ClaimedDelivery[]; stale: ObjectKey[] }> {
    const runner = this.dataSource.createQueryRunner();
    let rows: ClaimRow[];
    try {
      await runner.connect();
      await runner.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.claimLock})`);
      rows = await this.claimRows(runner.manager, now, leaseUntil, limit, perShop, claimToken, claimedBy, settling);
      await runner.query('COMMIT');
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    return this.claimOutcome(rows);
  }

  private claimRows(
    manager: EntityManager,
    now: Date,
    leaseUntil: Date,
    limit: number,
    perShop: number,
    claimToken: string,
    claimedBy: string,
    settling: readonly { id: string; claimToken: string }[],
  ): Promise<ClaimRow[]> {
    return preparedQuery<ClaimRow>(
      manager,
      `WITH RECURSIVE shops AS (
         SELECT (SELECT h.shop_id FROM ${this.dueTable} h ORDER BY h.shop_id LIMIT 1) AS shop_id
         UNION ALL
         SELECT (SELECT h.shop_id FROM ${this.dueTable} h WHERE h.shop_id > s.shop_id ORDER BY h.shop_id LIMIT 1)
           FROM shops s WHERE s.shop_id IS NOT NULL
       ), inflight AS (
         SELECT f.shop_id, count(*)::int AS n FROM ${this.table} f
          WHERE f.claim_token IS NOT NULL AND f.status = 'pending' AND f.next_attempt_at > $1
            AND (f.id, f.claim_token) NOT IN (SELECT * FROM unnest($7::uuid[], $8::uuid[]))
          GROUP BY f.shop_id
       ), candidates AS (
         SELECT c.* FROM shops s LEFT JOIN inflight i ON i.shop_id = s.shop_id
          CROSS JOIN LATERAL (
            SELECT h.object_type, h.object_id, h.due_at, h.position FROM ${this.dueTable} h
             WHERE h.shop_id = s.shop_id AND h.due_at <= $1
             ORDER BY h.due_at, h.position
             LIMIT GREATEST($6 - COALESCE(i.n, 0), 0)
             FOR UPDATE SKIP LOCKED
          ) c
          WHERE s.shop_id IS NOT NULL
       ), picked AS (
         SELECT c.object_type, c.object_id FROM candidates c ORDER BY c.due_at, c.position LIMIT $2
       ), leased AS (
         UPDATE ${this.dueTable} h SET due_at = $3 FROM picked p
          WHERE h.object_type = p.object_type AND h.object_id = p.object_id
         RETURNING h.object_type, h.object_id, h.delivery_id
       ), claimed AS (
         UPDATE ${this.table} d SET next_attempt_at = $3, claim_token = $4, claimed_by = $5, updated_at = $1
           FROM leased l WHERE d.id = l.delivery_id AND d.status = 'pending' AND d.next_attempt_at <= $1
         RETURNING d.id, d.event_id, d.shop_id, d.sequence, d.body, d.url_override, d.attempts, d.window_started_at, d.position
       )
       SELECT l.object_type, l.object_id, c.*, s.shop_id IS NOT NULL AS shop_known, s.callback_url, s.callback_secret,
              s.previous_callback_secret, s.previous_callback_secret_expires_at
         FROM leased l LEFT JOIN claimed c ON c.id = l.delivery_id LEFT JOIN ${this.shopsTable} s ON s.shop_id = c.shop_id
        ORDER BY c.position`,
      [
        now,
        limit,
        leaseUntil,
        claimToken,
        claimedBy,
        perShop,
        settling.map((d) => d.id),
        settling.map((d) => d.claimToken),
      ],
    );
  }

  private claimOutcome(rows: ClaimRow[]): { claimed: ClaimedDelivery[]; stale: ObjectKey[] } {
    const claimed: ClaimedDelivery[] = [];
    const stale: ObjectKey[] = [];
    for (const r of rows) {
      if (r.id === null) {
        stale.push({ objectType: r.object_type, objectId: r.object_id });
        continue;
      }
      claimed.push({
        id: r.id,
        eventId: r.event_id,
        shopId: r.shop_id,
        objectType: r.object_type,
        objectId: r.object_id,
        sequence: Number(r.sequence),
        body: r.body,
        urlOverride: r.url_override,
        attempts: Number(r.attempts),
        windowStartedAt: r.window_started_at,
        shop: r.shop_known
          ? {
              kind: 'known',
              callbackUrl: r.callback_url,
              callbackSecret: r.callback_secret,
              previousCallbackSecret: r.previous_callback_secret,
              previousCallbackSecretExpiresAt: r.previous_callback_secret_expires_at,
            }
          : { kind: 'unknown' },
      });
    }
    return { claimed, stale };
  }

  /**
   * Records the outcomes of claimed deliveries in one statement (one round trip, no explicit
   * transaction): the deliveries' new state and their attempts in the log, only where the claim
   * is still the worker's (a lease that ran out leaves the row to the next claimer), and each
   * object's head moved to its next pending delivery, or removed. A head moves only if no one
   * changed it since the statement's snapshot (its `version`): a consumer that added a delivery
   * to the same object meanwhile bumped it, and those objects' heads are then set again in a
   * transaction of their own that locks them first (`repairHeads`). Answers the ids recorded.
   */
  async recordOutcomes(outcomes: readonly DeliveryOutcome[], now: Date): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    const col = <K>(f: (o: DeliveryOutcome) => K) => outcomes.map(f);
    const rows = await preparedQuery<{ id: string | null; object_type: string | null; object_id: string | null }>(
      this.dataSource,
      `WITH v AS (
           SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[],
                                $7::int[], $8::timestamptz[], $9::text[], $10::int[], $11::int[])
             AS v(id, token, status, next_at, err, attempt, at, url, resp, latency)
         ), done AS (
           UPDATE ${this.table} d
              SET status = v.status, next_attempt_at = v.next_at, claim_token = NULL, updated_at = $1, last_error = v.err,
                  attempts = COALESCE(v.attempt, d.attempts), last_url = COALESCE(v.url, d.last_url),
                  last_response_status = CASE WHEN v.attempt IS NULL THEN d.last_response_status ELSE v.resp END,
                  delivered_at = CASE WHEN v.status = 'delivered' THEN $1 ELSE d.delivered_at END
             FROM v WHERE d.id = v.id AND d.status = 'pending' AND d.claim_token = v.token
           RETURNING d.id, d.object_type, d.object_id, d.shop_id, d.sequence, d.position, d.status, d.next_attempt_at,
                     v.attempt, v.at, v.url, v.resp, v.err, v.latency
         ), logged AS (
           INSERT INTO ${this.attemptsTable} (delivery_id, attempt, at, url, response_status, error, latency_ms)
           SELECT id, attempt, at, url, resp, err, latency FROM done WHERE attempt IS NOT NULL
         ), objects AS (
           SELECT DISTINCT object_type, object_id FROM done
         ), nxt AS (
           -- This statement's snapshot still shows the recorded rows as they were: they count as just written.
           SELECT o.object_type, o.object_id, h.version, n.id, n.shop_id, n.sequence, n.position, n.next_attempt_at
             FROM objects o
             LEFT JOIN ${this.dueTable} h ON h.object_type = o.object_type AND h.object_id = o.object_id
             LEFT JOIN LATERAL (
               SELECT c.* FROM (
                 SELECT p.id, p.shop_id, p.sequence, p.position, p.next_attempt_at FROM ${this.table} p
                  WHERE p.object_type = o.object_type AND p.object_id = o.object_id AND p.status = 'pending'
                    AND p.id NOT IN (SELECT id FROM done)
                 UNION ALL
                 SELECT x.id, x.shop_id, x.sequence, x.position, x.next_attempt_at FROM done x
                  WHERE x.object_type = o.object_type AND x.object_id = o.object_id AND x.status = 'pending'
               ) c ORDER BY c.sequence, c.position LIMIT 1
             ) n ON true
         ), moved AS (
           UPDATE ${this.dueTable} h
              SET delivery_id = n.id, shop_id = n.shop_id, sequence = n.sequence, position = n.position,
                  due_at = COALESCE(n.next_attempt_at, 'infinity'), version = h.version + 1
             FROM nxt n
            WHERE n.id IS NOT NULL AND h.object_type = n.object_type AND h.object_id = n.object_id AND h.version = n.version
           RETURNING h.object_type, h.object_id
         ), gone AS (
           DELETE FROM ${this.dueTable} h USING nxt n
            WHERE n.id IS NULL AND h.object_type = n.object_type AND h.object_id = n.object_id AND h.version = n.version
           RETURNING h.object_type, h.object_id
         )
         SELECT id, NULL AS object_type, NULL AS object_id FROM done
         UNION ALL
         SELECT NULL, n.object_type, n.object_id FROM nxt n
          WHERE NOT EXISTS (SELECT 1 FROM moved m WHERE m.object_type = n.object_type AND m.object_id = n.object_id)
            AND NOT EXISTS (SELECT 1 FROM gone g WHERE g.object_type = n.object_type AND g.object_id = n.object_id)`,
      [
        now,
        col((o) => o.id),
        col((o) => o.claimToken),
        col((o) => o.status),
        col((o) => o.nextAttemptAt),
        // PostgreSQL text cannot hold NUL: an error text with one would fail the whole batch.
        col((o) => o.error?.replace(/\u0000/g, '') ?? null),
        col((o) => o.attempt?.number ?? null),
        col((o) => o.attempt?.at ?? null),
        col((o) => o.attempt?.url ?? null),
        col((o) => o.attempt?.responseStatus ?? null),
        col((o) => o.attempt?.latencyMs ?? null),
      ],
    );
    const recorded = new Set<string>();
    const raced: ObjectKey[] = [];
    for (const r of rows) {
      if (r.id) recorded.add(r.id);
      else raced.push({ objectType: r.object_type!, objectId: r.object_id! });
    }
    // Heads a consumer changed meanwhile (or missing ones): set again, locked first. The outcomes
    // are committed whatever comes of it: a head left on a recorded delivery is found stale by the
    // claim when its lease runs out and set again then.
    if (raced.length > 0) {
      try {
        await this.repairHeads(raced);
      } catch (err) {
        this.logger.error(`setting ${raced.length} queue heads again failed: ${(err as Error).message}`);
      }
    } else if (recorded.size > 0) this.work.wake(this.dataSource.manager);
    return recorded;
  }

  /**
   * Sets the heads of objects whose pending deliveries changed to their lowest pending delivery
   * (or removes them: none pending). The caller holds the heads' locks from an earlier statement
   * of its transaction, so this statement's snapshot sees every delivery committed before them,
   * and a consumer adding one now waits for this transaction and then compares with its result.
   * A head that was not there to lock may be inserted by a consumer meanwhile, with a delivery
   * this snapshot does not see: it is replaced only by an earlier delivery, never a later one.
   */
  private async moveHeads(m: EntityManager, keys: readonly ObjectKey[], locked: readonly ObjectKey[]): Promise<void> {
    await m.query(
      `WITH o AS (
         SELECT DISTINCT * FROM unnest($1::text[], $2::uuid[]) AS o(object_type, object_id)
       ), nxt AS (
         SELECT o.object_type, o.object_id, n.id, n.shop_id, n.sequence, n.position, n.next_attempt_at
           FROM o LEFT JOIN LATERAL (
             SELECT d.id, d.shop_id, d.sequence, d.position, d.next_attempt_at FROM ${this.table} d
              WHERE d.object_type = o.object_type AND d.object_id = o.object_id AND d.status = 'pending'
              ORDER BY d.sequence, d.position LIMIT 1
           ) n ON true
       ), gone AS (
         DELETE FROM ${this.dueTable} h USING nxt
          WHERE nxt.id IS NULL AND h.object_type = nxt.object_type AND h.object_id = nxt.object_id
       )
       INSERT INTO ${this.dueTable} AS h (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
       SELECT object_type, object_id, id, shop_id, sequence, position, COALESCE(next_attempt_at, 'infinity')
         FROM nxt WHERE id IS NOT NULL
       ON CONFLICT (object_type, object_id) DO UPDATE
          SET delivery_id = EXCLUDED.delivery_id, shop_id = EXCLUDED.shop_id, sequence = EXCLUDED.sequence,
              position = EXCLUDED.position, due_at = EXCLUDED.due_at, version = h.version + 1
        WHERE (h.object_type, h.object_id) IN (SELECT * FROM unnest($3::text[], $4::uuid[]))
           OR (EXCLUDED.sequence, EXCLUDED.position) < (h.sequence, h.position)`,
      [
        keys.map((k) => k.objectType),
        keys.map((k) => k.objectId),
        locked.map((k) => k.objectType),
        locked.map((k) => k.objectId),
      ],
    );
  }

  /** Sets the heads of objects from their deliveries: locks those that exist, in one order, then moves them. */
  private async setHeads(m: EntityManager, keys: readonly ObjectKey[]): Promise<void> {
    const locked: { object_type: string; object_id: string }[] = await m.query(
      `SELECT h.object_type, h.object_id FROM ${this.dueTable} h
        WHERE (h.object_type, h.object_id) IN (SELECT * FROM unnest($1::text[], $2::uuid[]))
        ORDER BY h.object_type, h.object_id FOR UPDATE`,
      [keys.map((k) => k.objectType), keys.map((k) => k.objectId)],
    );
    await this.moveHeads(
      m,
      keys,
      locked.map((r) => ({ objectType: r.object_type, objectId: r.object_id })),
    );
  }

  /**
   * Sets the heads of objects again from their deliveries: after a claim found a head whose
   * delivery was not claimable (it should not happen; this keeps such an object from stalling).
   */
  async repairHeads(keys: readonly ObjectKey[]): Promise<void> {
    if (keys.length === 0) return;
    await this.dataSource.transaction(async (m) => {
      await this.setHeads(m, keys);
      this.notify(m);
    });
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
    const rows: { id: string; object_type: string; object_id: string }[] = await m.query(
      `WITH target AS (
         SELECT id FROM ${this.table} d WHERE ${where.join(' AND ')} ORDER BY position LIMIT $${params.length} FOR UPDATE SKIP LOCKED
       ), replayed AS (
         UPDATE ${this.table} d SET status = 'pending', next_attempt_at = $1, window_started_at = $1, claim_token = NULL, updated_at = $1
           FROM target WHERE d.id = target.id RETURNING d.id, d.position, d.object_type, d.object_id
       )
       SELECT id, object_type, object_id FROM replayed ORDER BY position`,
      params,
    );
    if (rows.length > 0) {
      // The replayed deliveries may now come first in their objects' queues.
      const keys = rows.map((r) => ({ objectType: r.object_type, objectId: r.object_id }));
      await this.setHeads(m, keys);
    }
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
