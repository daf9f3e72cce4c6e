import type { Pool } from 'pg';
import { runBooksChecks } from '@payments/ledger-domain';
import type { Breach, CheckResult, CheckSettings } from './reconciliation.reads';

/** The ledger's invariants the reconciliation reports (decisions 306, 307), one label value each. */
export const LEDGER_INVARIANTS = [
  'ledger_transaction_unbalanced',
  'ledger_balance_differs_from_postings',
  'ledger_balance_below_zero',
  'ledger_order_credited_twice',
  'ledger_credit_settled_twice',
  'ledger_suspense_unqueued',
  'ledger_order_credited',
  'ledger_refund_debited',
  'ledger_payout_hold_finished',
  'ledger_awaiting_rate',
] as const;
export type LedgerInvariant = (typeof LEDGER_INVARIANTS)[number];

/** What each counts, for the clean report. */
export const LEDGER_CHECKED: Record<LedgerInvariant, string> = {
  ledger_transaction_unbalanced: 'ledger transactions',
  ledger_balance_differs_from_postings: 'ledger accounts',
  ledger_balance_below_zero: 'ledger accounts',
  ledger_order_credited_twice: 'ledger credits',
  ledger_credit_settled_twice: 'settled ledger credits',
  ledger_suspense_unqueued: 'shop suspense accounts holding money',
  ledger_order_credited: 'completed orders',
  ledger_refund_debited: 'orders with refunds',
  ledger_payout_hold_finished: 'final payouts with a hold',
  ledger_awaiting_rate: 'credits awaiting a rate',
};

/** The ledger's views read: every one of them (decision 300). */
export const LEDGER_VIEWS = ['ops_accounts', 'ops_postings', 'ops_transactions', 'ops_holds', 'ops_awaiting_rates'];

const q = (schema: string) => `"${schema.replace(/"/g, '')}"`;

/** The statuses of a completed order (a refund follows its completion). */
const CREDITED_ORDER = ['completed', 'partially_refunded', 'refunded'];

/**
 * The books' own invariants, the same statements the ledger runs on its interval
 * (libs/ledger-domain runBooksChecks), through the ledger's views: each violation a breach.
 */
async function ledgerBooks(db: Pool, c: CheckSettings): Promise<CheckResult[]> {
  const now = new Date();
  const results = await runBooksChecks(async (sql, params) => (await db.query(sql, params)).rows, c.schemas.ledger);
  return results.map((r) => {
    const invariant = `ledger_${r.check}` as const satisfies LedgerInvariant;
    return {
      invariant,
      checked: r.checked,
      breaches: r.findings.map((f) => ({
        invariant,
        subject: `${c.schemas.ledger} ${f.subject}`,
        detail: f.detail,
        since: f.since ?? now,
      })),
    };
  });
}

/** Every completed order has its credit in the ledger (at most one: ledger_order_credited_twice). */
async function orderCredited(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const { orders, ledger } = c.schemas;
  const { rows } = await db.query(
    `SELECT o.id, o.shop_id, o.status, trim_scale(o.amount)::text AS amount, o.currency, o.updated_at,
            EXISTS (SELECT 1 FROM ${q(ledger)}.ops_transactions t
                     WHERE t.source_id = o.id::text AND t.kind = 'order_completed' OFFSET 0) AS credited
       FROM ${q(orders)}.ops_orders o
      WHERE o.status = ANY($1) AND o.updated_at < now() - make_interval(secs => $2)
        AND o.updated_at >= now() - make_interval(days => $3)`,
    [CREDITED_ORDER, c.graceSeconds, c.lookbackDays],
  );
  const breaches: Breach[] = rows
    .filter((r) => !r.credited)
    .map((r) => ({
      invariant: 'ledger_order_credited',
      subject: `${orders}.orders ${r.id}`,
      detail: `order of ${r.amount} ${r.currency} is ${r.status} but the ledger has no credit for it (its completion dead-lettered? /ops/v1/dead-letters)`,
      since: r.updated_at,
    }));
  return { invariant: 'ledger_order_credited', checked: rows.length, breaches };
}

/**
 * Every refund an order accepted is debited in the ledger: per order with a refund in the look-back
 * window, all of its refunds (older ones too) add up to all the ledger booked for it.
 */
async function refundDebited(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const { orders, ledger } = c.schemas;
  const { rows } = await db.query(
    `SELECT r.order_id, r.n, r.last, trim_scale(r.total)::text AS total, trim_scale(b.booked)::text AS booked,
            b.booked <> r.total AS differs
       FROM (SELECT order_id, sum(amount) AS total, count(*)::int AS n, max(created_at) AS last
               FROM ${q(orders)}.ops_refunds
              WHERE order_id IN (SELECT order_id FROM ${q(orders)}.ops_refunds
                                  WHERE created_at >= now() - make_interval(days => $2))
              GROUP BY order_id) r
       CROSS JOIN LATERAL (SELECT coalesce(sum(t.gross), 0) AS booked FROM ${q(ledger)}.ops_transactions t
                            WHERE t.source_id = r.order_id::text AND t.kind = 'order_refunded' OFFSET 0) b
      WHERE r.last < now() - make_interval(secs => $1)`,
    [c.graceSeconds, c.lookbackDays],
  );
  const breaches: Breach[] = rows
    .filter((r) => r.differs)
    .map((r) => ({
      invariant: 'ledger_refund_debited',
      subject: `${orders}.orders ${r.order_id}`,
      detail: `${r.n} refund(s) add up to ${r.total}, the ledger debited ${r.booked} for them`,
      since: r.last,
    }));
  return { invariant: 'ledger_refund_debited', checked: rows.length, breaches };
}

/** Every final payout's hold is finished as the payout was: posted when completed, voided when failed or cancelled. */
async function payoutHoldFinished(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const { payouts, ledger } = c.schemas;
  const { rows } = await db.query(
    `SELECT h.payout_id, h.status AS hold, p.status AS payout, p.updated_at
       FROM ${q(payouts)}.ops_payouts p JOIN ${q(ledger)}.ops_holds h ON h.payout_id = p.id
      WHERE p.status IN ('completed', 'failed', 'cancelled') AND p.updated_at < now() - make_interval(secs => $1)
        AND p.updated_at >= now() - make_interval(days => $2)`,
    [c.graceSeconds, c.lookbackDays],
  );
  const breaches: Breach[] = rows
    .filter((r) => r.hold !== (r.payout === 'completed' ? 'posted' : 'voided'))
    .map((r) => ({
      invariant: 'ledger_payout_hold_finished',
      subject: `${payouts}.payouts ${r.payout_id}`,
      detail: `payout is ${r.payout} but its ledger hold is ${r.hold}`,
      since: r.updated_at,
    }));
  return { invariant: 'ledger_payout_hold_finished', checked: rows.length, breaches };
}

/** What an operator reads of a credit waiting for a rate, parked or not (decision 304). */
function awaitingDetail(r: Record<string, string | null>): string {
  const what = `${r.amount} ${r.order_currency} of order ${r.order_id} (shop ${r.shop_id})`;
  if (r.parked === 'refund hold')
    return `${what} is held in suspense by an open refund hold; converted once the hold is voided, if it is`;
  if (r.parked)
    return `${what} waits in suspense, parked: ${r.parked}; fix the cause, then an admin releases it (POST /ops/v1/awaiting-credits/${r.transaction_id}/release, or its shop's books in the console) and the ledger converts it`;
  return r.balance_currency
    ? `${what} waits in suspense for a ${r.order_currency}/${r.balance_currency} rate: set one (POST /ops/v1/rates) and the ledger converts it`
    : `${what} waits in suspense; its balance currency was not recorded (booked before decision 304): an operator moves it`;
}

/**
 * Every credit still waiting for a rate past the grace period (decision 307): its net sits in the
 * shop's suspense until an operator sets the pair's rate (POST /ops/v1/rates); the ledger then
 * converts it. Never converted at a guessed rate, so an operator must see it.
 */
async function awaitingRate(db: Pool, c: CheckSettings): Promise<CheckResult> {
  const { rows } = await db.query(
    `SELECT transaction_id, shop_id, order_id, order_currency, balance_currency, trim_scale(amount)::text AS amount,
            created_at, parked,
            created_at < now() - make_interval(secs => $1) OR parked LIKE 'conversion failed%' AS overdue
       FROM ${q(c.schemas.ledger)}.ops_awaiting_rates`,
    [c.graceSeconds],
  );
  const breaches: Breach[] = rows
    .filter((r) => r.overdue)
    .map((r) => ({
      invariant: 'ledger_awaiting_rate',
      subject: `${c.schemas.ledger}.transactions ${r.transaction_id}`,
      detail: awaitingDetail(r),
      since: r.created_at,
    }));
  return { invariant: 'ledger_awaiting_rate', checked: rows.length, breaches };
}

/** The ledger's checks, in the order of LEDGER_INVARIANTS. */
export async function runLedgerChecks(db: Pool, c: CheckSettings): Promise<CheckResult[]> {
  const results = await ledgerBooks(db, c);
  for (const check of [orderCredited, refundDebited, payoutHoldFinished, awaitingRate])
    results.push(await check(db, c));
  return results;
}
