import type { Pool } from 'pg';
import { LEDGER_INVARIANTS, LEDGER_VIEWS, runLedgerChecks } from './ledger.reads';

/** The invariants a finance team relies on (issue 17 item 4), one label value each on the metric. */
export const INVARIANTS = [
  'refunds_within_accepted',
  'final_status_called_back',
  'provider_callback_applied',
  'outbox_not_stuck',
  'attempt_answered',
  'daily_totals_match',
  // Decision 343: money a provider reported for a replaced attempt of a final order.
  'replaced_attempt_paid',
  // The books (issue 29, decisions 306, 307): ledger.reads.ts.
  ...LEDGER_INVARIANTS,
] as const;
export type Invariant = (typeof INVARIANTS)[number];

/** One breach, as an operator reads it: what, where, since when. */
export interface Breach {
  invariant: Invariant;
  /** Where: a table and a row, or a shop, a day and a status. Stable across runs (one row per breach). */
  subject: string;
  /** What is wrong, with the figures. */
  detail: string;
  since: Date;
}

export interface CheckResult {
  invariant: Invariant;
  /** How many things were checked (orders with refunds, final statuses, callbacks …), for the clean report. */
  checked: number;
  breaches: Breach[];
}

/** The schemas of the other services, as their *_DB_SCHEMA say. */
export interface ReconciledSchemas {
  orders: string;
  payouts: string;
  p2p: string;
  callbacksIngest: string;
  merchantCallbacks: string;
  ledger: string;
  /** Every schema with an outbox. */
  outboxes: string[];
  /** The inbox consumer of orders, payouts and p2p (their *_CONSUMER_GROUP): half of the inbox key. */
  consumers: { orders: string; payouts: string; p2p: string };
}

export interface CheckSettings {
  schemas: ReconciledSchemas;
  /** Changes younger than this are still on their way through Kafka: not judged yet. */
  graceSeconds: number;
  /** An unpublished outbox row older than this is a breach. */
  outboxMaxAgeSeconds: number;
  /**
   * How far back the checks that compare with merchant-callbacks' deliveries look: those rows are
   * purged after the feed's retention (never less than 30 days, decision 103), so an older final
   * status would read as "no callback" when its delivery was only purged.
   */
  lookbackDays: number;
}

/**
 * Everything the reconciliation and the overview read, and nothing else: the operator views each
 * service makes and grants in its own migration (`<schema>.ops_<name>`, decision 300), the one list
 * their read-only role is granted SELECT on (decision 106), never a table. Kept beside the SQL so
 * that the two cannot drift.
 */
export function reconciliationReads(s: ReconciledSchemas): string[] {
  return [
    `${s.orders}.ops_orders`,
    `${s.orders}.ops_refunds`,
    `${s.orders}.ops_provider_dispatches`,
    `${s.orders}.ops_payment_attempts`,
    // The Providers panel (decision 331): each shop's routes, read-only.
    `${s.orders}.ops_shop_routes`,
    `${s.orders}.ops_inbox`,
    `${s.payouts}.ops_payouts`,
    `${s.payouts}.ops_provider_dispatches`,
    `${s.payouts}.ops_inbox`,
    `${s.p2p}.ops_transactions`,
    `${s.p2p}.ops_provider_dispatches`,
    `${s.p2p}.ops_inbox`,
    `${s.callbacksIngest}.ops_provider_callbacks`,
    `${s.merchantCallbacks}.ops_deliveries`,
    ...LEDGER_VIEWS.map((v) => `${s.ledger}.${v}`),
    ...s.outboxes.map((o) => `${o}.ops_outbox_unpublished`),
  ];
}

/** A uuid as text, any case: what may be cast to uuid without an error. */
const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const q = (schema: string) => `"${schema.replace(/"/g, '')}"`;

type Rows = Record<string, any>[];

async function rows(db: Pool, sql: string, params: unknown[] = []): Promise<Rows> {
  return (await db.query(sql, params)).rows;
}

/** Every order's refunds add up to at most its accepted amount. */
async function refundsWithinAccepted(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const o = q(c.schemas.orders);
  const found = await rows(
    db,
    `SELECT o.id, trim_scale(o.amount)::text AS amount, o.currency, trim_scale(r.total)::text AS total, r.n, r.last, r.total > o.amount AS over
       FROM (SELECT order_id, sum(amount) AS total, count(*)::int AS n, max(created_at) AS last FROM ${o}.ops_refunds GROUP BY order_id) r
       JOIN ${o}.ops_orders o ON o.id = r.order_id`,
  );
  const breaches = found
    .filter((r) => r.over)
    .map((r) => ({
      invariant: 'refunds_within_accepted' as const,
      subject: `${c.schemas.orders}.orders ${r.id}`,
      detail: `${r.n} refund(s) add up to ${r.total} ${r.currency}, more than the accepted ${r.amount} ${r.currency}`,
      since: r.last,
    }));
  return { invariant: 'refunds_within_accepted', checked: found.length, breaches };
}

/** Every final status has a merchant callback delivered or still in its retry window. */
async function finalStatusCalledBack(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const mc = q(c.schemas.merchantCallbacks);
  const objects = [
    {
      type: 'order',
      table: `${q(c.schemas.orders)}.ops_orders`,
      name: `${c.schemas.orders}.orders`,
      finals: FINAL_ORDER,
    },
    {
      type: 'payout',
      table: `${q(c.schemas.payouts)}.ops_payouts`,
      name: `${c.schemas.payouts}.payouts`,
      finals: FINAL_TRANSFER,
    },
    {
      type: 'p2p',
      table: `${q(c.schemas.p2p)}.ops_transactions`,
      name: `${c.schemas.p2p}.transactions`,
      finals: FINAL_TRANSFER,
    },
  ];
  let checked = 0;
  const breaches: Breach[] = [];
  for (const obj of objects) {
    const found = await rows(
      db,
      `SELECT x.id, x.status, x.sequence, x.updated_at, d.status AS delivery, d.window_started_at, d.last_error
         FROM ${obj.table} x
         LEFT JOIN ${mc}.ops_deliveries d ON d.object_type = $1 AND d.object_id = x.id AND d.sequence = x.sequence
        WHERE x.status = ANY($2) AND x.updated_at < now() - make_interval(secs => $3)
          AND x.updated_at >= now() - make_interval(days => $4)`,
      [obj.type, obj.finals, c.graceSeconds, c.lookbackDays],
    );
    checked += found.length;
    for (const r of found) {
      // pending: still being retried within its window; skipped: the shop has no callback URL.
      if (r.delivery === 'delivered' || r.delivery === 'pending' || r.delivery === 'skipped') continue;
      breaches.push({
        invariant: 'final_status_called_back',
        subject: `${obj.name} ${r.id} #${r.sequence}`,
        detail:
          r.delivery === null
            ? `${obj.type} is ${r.status} but merchant-callbacks has no callback for it`
            : `${obj.type} is ${r.status}; its callback ${r.delivery} after the retry window${r.last_error ? ` (${r.last_error})` : ''}`,
        since: r.updated_at,
      });
    }
  }
  return { invariant: 'final_status_called_back', checked, breaches };
}

/**
 * Every provider callback stored is applied (its event in the owner's inbox: duplicates and stale
 * ones are applied as no-ops) or explained (its reference names no order, payout or P2P transaction).
 */
async function providerCallbackApplied(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const s = c.schemas;
  // Each EXISTS is a primary-key probe: the inbox by (consumer, event_id), the objects by their
  // uuid id, compared as uuid (a reference that is not a uuid names no object; CASE keeps the cast
  // from ever seeing it). OFFSET 0 keeps the planner from hashing a whole inbox or table instead:
  // the work grows with the callbacks of the look-back (received_at is indexed), not with history.
  const found = await rows(
    db,
    `SELECT pc.id, pc.provider_code, pc.provider_event_id, pc.reference, pc.received_at,
            (EXISTS (SELECT 1 FROM ${q(s.orders)}.ops_inbox i WHERE i.consumer = $3 AND i.event_id = pc.id OFFSET 0)
             OR EXISTS (SELECT 1 FROM ${q(s.payouts)}.ops_inbox i WHERE i.consumer = $4 AND i.event_id = pc.id OFFSET 0)
             OR EXISTS (SELECT 1 FROM ${q(s.p2p)}.ops_inbox i WHERE i.consumer = $5 AND i.event_id = pc.id OFFSET 0)) AS applied,
            CASE WHEN pc.reference ~* '${UUID_PATTERN}' THEN
              EXISTS (SELECT 1 FROM ${q(s.orders)}.ops_orders o WHERE o.id = pc.reference::uuid OFFSET 0)
              OR EXISTS (SELECT 1 FROM ${q(s.payouts)}.ops_payouts p WHERE p.id = pc.reference::uuid OFFSET 0)
              OR EXISTS (SELECT 1 FROM ${q(s.p2p)}.ops_transactions t WHERE t.id = pc.reference::uuid OFFSET 0)
            ELSE false END AS known
       FROM ${q(s.callbacksIngest)}.ops_provider_callbacks pc
      WHERE pc.received_at < now() - make_interval(secs => $1)
        AND pc.received_at >= now() - make_interval(days => $2)`,
    [c.graceSeconds, c.lookbackDays, s.consumers.orders, s.consumers.payouts, s.consumers.p2p],
  );
  const breaches = found
    .filter((r) => !r.applied && r.known)
    .map((r) => ({
      invariant: 'provider_callback_applied' as const,
      subject: `${s.callbacksIngest}.provider_callbacks ${r.id}`,
      detail: `callback ${r.provider_code}/${r.provider_event_id} for ${r.reference} was stored but never applied by its owner`,
      since: r.received_at,
    }));
  return { invariant: 'provider_callback_applied', checked: found.length, breaches };
}

/** No outbox row waits unpublished longer than the threshold. */
async function outboxNotStuck(db: Pool, c: CheckSettings): Promise<CheckResult> {
  let checked = 0;
  const breaches: Breach[] = [];
  for (const schema of c.schemas.outboxes) {
    const [r] = await rows(
      db,
      // The view holds only the unpublished rows; inlined, it reads the partial index outbox_unpublished.
      `SELECT count(*)::int AS waiting,
              count(*) FILTER (WHERE created_at < now() - make_interval(secs => $1))::int AS stuck,
              min(created_at) AS oldest
         FROM ${q(schema)}.ops_outbox_unpublished`,
      [c.outboxMaxAgeSeconds],
    );
    checked += 1;
    if (r.stuck > 0)
      breaches.push({
        invariant: 'outbox_not_stuck',
        subject: `${schema}.outbox`,
        detail: `${r.stuck} row(s) unpublished for more than ${c.outboxMaxAgeSeconds} s (${r.waiting} waiting)`,
        since: r.oldest,
      });
  }
  return { invariant: 'outbox_not_stuck', checked, breaches };
}

/**
 * Every payment attempt sent to the provider has an answer (accepted, refused, a callback) or its
 * order is in need_action after the timeout (or was resolved since: it is final).
 */
async function attemptAnswered(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const o = q(c.schemas.orders);
  const found = await rows(
    db,
    `SELECT d.payment_id, d.order_id, d.status, d.updated_at, o.status AS order_status,
            EXISTS (SELECT 1 FROM ${o}.ops_payment_attempts a WHERE a.order_id = d.order_id AND a.payment_id = d.payment_id
                     AND a.status IN ('success', 'failed')) AS answered
       FROM ${o}.ops_provider_dispatches d JOIN ${o}.ops_orders o ON o.id = d.order_id
      WHERE d.sends > 0 AND d.updated_at < now() - make_interval(secs => $1)`,
    [c.graceSeconds],
  );
  const breaches: Breach[] = [];
  for (const r of found) {
    const ok =
      r.status === 'accepted' ||
      r.status === 'refused' ||
      r.status === 'gave_up' ||
      r.answered ||
      (r.status === 'timed_out' && (r.order_status === 'need_action' || FINAL_ORDER.includes(r.order_status)));
    if (ok) continue;
    breaches.push({
      invariant: 'attempt_answered',
      subject: `${c.schemas.orders}.provider_dispatches ${r.payment_id}`,
      detail:
        r.status === 'timed_out'
          ? `attempt timed out but order ${r.order_id} is ${r.order_status}, not need_action, with no provider answer`
          : `attempt was sent but has no provider answer (dispatch ${r.status}, order ${r.order_id} ${r.order_status})`,
      since: r.updated_at,
    });
  }
  return { invariant: 'attempt_answered', checked: found.length, breaches };
}

/**
 * Per shop and day (of the order's creation), counts and sums by status agree between the orders
 * and the last order event merchant-callbacks recorded for each of them.
 */
async function dailyTotalsMatch(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const o = q(c.schemas.orders);
  const mc = q(c.schemas.merchantCallbacks);
  const found = await rows(
    db,
    `WITH settled AS (
       SELECT id, shop_id, created_at::date AS day, status, amount FROM ${o}.ops_orders
        WHERE updated_at < now() - make_interval(secs => $1) AND created_at >= now() - make_interval(days => $2)
     ), ours AS (
       SELECT shop_id, day, status, count(*)::int AS n, sum(amount) AS total FROM settled GROUP BY 1, 2, 3
     ), last_event AS (
       SELECT DISTINCT ON (d.object_id) d.object_id, d.sent_status, d.sent_amount
         FROM ${mc}.ops_deliveries d WHERE d.object_type = 'order' AND d.object_id IN (SELECT id FROM settled)
        ORDER BY d.object_id, d.sequence DESC
     ), sent AS (
       SELECT s.shop_id, s.day, e.sent_status AS status, count(*)::int AS n, sum(e.sent_amount::numeric) AS total
         FROM last_event e JOIN settled s ON s.id = e.object_id GROUP BY 1, 2, 3
     )
     SELECT COALESCE(ours.shop_id, sent.shop_id) AS shop_id, COALESCE(ours.day, sent.day)::text AS day,
            COALESCE(ours.status, sent.status) AS status,
            COALESCE(ours.n, 0) AS orders_n, trim_scale(COALESCE(ours.total, 0))::text AS orders_total,
            COALESCE(sent.n, 0) AS sent_n, trim_scale(COALESCE(sent.total, 0))::text AS sent_total,
            (ours.n IS DISTINCT FROM sent.n OR ours.total IS DISTINCT FROM sent.total) AS differs
       FROM ours FULL JOIN sent ON sent.shop_id = ours.shop_id AND sent.day = ours.day AND sent.status = ours.status`,
    [c.graceSeconds, c.lookbackDays],
  );
  const breaches = found
    .filter((r) => r.differs)
    .map((r) => ({
      invariant: 'daily_totals_match' as const,
      subject: `shop ${r.shop_id} ${r.day} ${r.status}`,
      detail: `orders: ${r.orders_n} for ${r.orders_total}; events sent: ${r.sent_n} for ${r.sent_total}`,
      since: new Date(`${r.day}T00:00:00Z`),
    }));
  return { invariant: 'daily_totals_match', checked: found.length, breaches };
}

/**
 * Decision 343: a provider reported `success` for an attempt a failover replaced (`2-07-07`) after
 * its order was already final (failed, expired, cancelled, or completed by the newer attempt). The
 * order stays final and the ledger books nothing, but the provider has the payer's money: an
 * operator refunds it there. Judged within the look-back of the attempt's creation; an order an
 * operator settled after the report (it moved since, by an operator's resolve) is not listed. An
 * order that moved since for another reason (the merchant refunded the newer attempt's payment,
 * the processing timeout) still is: that move settles nothing of the replaced attempt's money.
 * The attempt's `updated_at` is when its report last changed: a provider's repeat of the same
 * report leaves it as it was (decision 350), so it never brings back a breach an operator settled.
 */
async function replacedAttemptPaid(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const o = q(c.schemas.orders);
  const found = await rows(
    db,
    `SELECT a.order_id, a.payment_id, a.provider, trim_scale(a.amount)::text AS amount, a.currency, a.updated_at,
            o.status AS order_status,
            (a.status_code = '2-07-07' AND o.status = ANY($3::text[])
             AND (a.updated_at >= o.updated_at OR NOT o.resolved_by_operator)) AS stray
       FROM ${o}.ops_payment_attempts a JOIN ${o}.ops_orders o ON o.id = a.order_id
      WHERE a.status = 'success' AND a.updated_at < now() - make_interval(secs => $1)
        AND a.created_at >= now() - make_interval(days => $2)`,
    [c.graceSeconds, c.lookbackDays, FINAL_ORDER],
  );
  const breaches: Breach[] = found
    .filter((r) => r.stray)
    .map((r) => ({
      invariant: 'replaced_attempt_paid' as const,
      subject: `${c.schemas.orders}.payment_attempts ${r.payment_id}`,
      detail: `${r.provider} reported ${r.amount} ${r.currency} paid for replaced attempt ${r.payment_id} of order ${r.order_id}, which was already ${r.order_status}: the payer may be charged without (or twice for) the order; refund it at ${r.provider}`,
      since: r.updated_at,
    }));
  return { invariant: 'replaced_attempt_paid', checked: found.length, breaches };
}

const FINAL_ORDER = ['completed', 'partially_refunded', 'refunded', 'cancelled', 'failed'];
const FINAL_TRANSFER = ['completed', 'failed'];

/** Runs every check, one after the other (they read, never lock). */
export async function runChecks(db: Pool, settings: CheckSettings): Promise<CheckResult[]> {
  const checks = [
    refundsWithinAccepted,
    finalStatusCalledBack,
    providerCallbackApplied,
    outboxNotStuck,
    attemptAnswered,
    dailyTotalsMatch,
    replacedAttemptPaid,
  ];
  const results: CheckResult[] = [];
  for (const check of checks) results.push(await check(db, settings));
  results.push(...(await runLedgerChecks(db, settings)));
  return results;
}
