import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { WorkQueue, type WorkQueueTable } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { param, raw, type Sql, sql } from '@payments/sql';
import type { CallbackBody } from '@payments/merchant-callbacks-domain';
import { claimOutcome, type ClaimedDelivery, type ClaimRow, claimStatement } from './delivery-claim';
import { setHeads } from './delivery-heads';
import { type DeliveryOutcome, outcomesStatement } from './delivery-outcomes';
import { deliveryChannel, deliveryTables, type DeliveryTables, type ObjectKey } from './delivery-tables';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

export type { ClaimedDelivery } from './delivery-claim';
export type { DeliveryOutcome } from './delivery-outcomes';
export { deliveryChannel, type ObjectKey } from './delivery-tables';

export interface NewDelivery {
  eventId: string;
  body: CallbackBody;
  urlOverride: string | null;
}

/**
 * The delivery queue on the shared work queue of libs/messaging (its channel, `inFlight`), with
 * the next due time read from the heads: their index answers it without reading the backlog.
 */
export class DeliveryQueue extends WorkQueue {
  constructor(
    private readonly ds: DataSource,
    private readonly headsTable: Sql,
    t: WorkQueueTable,
  ) {
    super(ds, t);
  }

  override async nextDueAt(): Promise<Date | null> {
    // A head due at 'infinity' (a pending delivery without a time) is never due: node-postgres would answer Infinity.
    const rows: { at: Date | null }[] = await this.ds.query(
      sql`SELECT min(due_at) FILTER (WHERE due_at <> 'infinity') AS at FROM ${this.headsTable}`.text,
    );
    return rows[0]?.at ?? null;
  }
}

/**
 * The queue of callbacks to merchants: what the consumer adds, the worker claims and records.
 * Rows are claimed with a lease (`next_attempt_at` moved past the HTTP call) and a claim token,
 * so the call runs outside any transaction and a crashed worker's rows come back when the lease
 * has run out. Only the head of each object's queue (`delivery_heads`: its lowest pending
 * sequence) can be claimed, which keeps each object's callbacks in sequence order and the claim's
 * cost independent of the backlog (decision 199); each shop's calls in flight stay under its
 * limit. The statements of the claim and of the outcomes are in delivery-claim.ts and
 * delivery-outcomes.ts; the operators' log is operate/delivery-log.repository.ts and the
 * merchant's feed read-feed/feed.repository.ts.
 */
@Injectable()
export class DeliveryRepository {
  private readonly logger = new Logger(DeliveryRepository.name);
  private readonly t: DeliveryTables;
  readonly work: DeliveryQueue;
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
    this.t = deliveryTables(config.schema);
    this.work = new DeliveryQueue(dataSource, this.t.heads, {
      table: this.t.deliveries.text,
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
   * statement (decisions 233, 243): `inbox` (an `Inbox.cte` named `ib`)
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
         INSERT INTO ${this.t.feedHeads} AS f (shop_id, last_position) SELECT shop_id, n FROM counts ORDER BY shop_id
         ON CONFLICT (shop_id) DO UPDATE SET last_position = f.last_position + EXCLUDED.last_position
         RETURNING shop_id, last_position
       ), added AS (
         INSERT INTO ${this.t.deliveries} (id, event_id, type, object_type, object_id, shop_id, sequence, url_override, body, status, next_attempt_at, window_started_at, created_at, updated_at, feed_position)
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
         INSERT INTO ${this.t.heads} AS h (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
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
      const claim = claimStatement(this.t, { now, leaseUntil, limit, perShop, claimToken, claimedBy, settling });
      rows = await preparedQuery<ClaimRow>(runner.manager, claim.text, claim.values);
      await runner.query('COMMIT');
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    return claimOutcome(rows);
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
    const statement = outcomesStatement(this.t, outcomes, now);
    const rows = await preparedQuery<{ id: string | null; object_type: string | null; object_id: string | null }>(
      this.dataSource,
      statement.text,
      statement.values,
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
   * Sets the heads of objects from their deliveries, in the caller's transaction (after a replay,
   * whose deliveries may now come first in their objects' queues): see delivery-heads.ts.
   */
  setHeads(m: EntityManager, keys: readonly ObjectKey[]): Promise<void> {
    return setHeads(m, this.t, keys);
  }

  /**
   * Sets the heads of objects again from their deliveries: after a claim found a head whose
   * delivery was not claimable (it should not happen; this keeps such an object from stalling).
   */
  async repairHeads(keys: readonly ObjectKey[]): Promise<void> {
    if (keys.length === 0) return;
    await this.dataSource.transaction(async (m) => {
      await setHeads(m, this.t, keys);
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
      sql`SELECT count(*) FILTER (WHERE attempts = 0)::int AS waiting, count(*) FILTER (WHERE attempts > 0)::int AS retrying,
              extract(epoch FROM now() - min(created_at))::float8 AS age
         FROM ${this.t.deliveries} WHERE status = 'pending'`.text,
    );
    return { waiting: row.waiting, retrying: row.retrying, oldestAgeSeconds: Math.max(0, row.age ?? 0) };
  }
}
