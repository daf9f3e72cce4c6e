// The books check of a fault scenario (issue 29): once the scenario settled, the shop's balances in
// the ledger must be what the load's own records imply to the last minor unit, every posting the
// load's objects call for must be there exactly once, no hold may be left open but a non-final
// payout's, and the ledger's invariants (apps/ledger, checkBooks) must hold.
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../stack/common.mjs';
import { createRequest } from './client.mjs';
import { PAID } from './reconcile.mjs';

const require = createRequire(import.meta.url);
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
/** The payout statuses after which its hold must be posted (completed) or voided (the rest). */
const PAYOUT_FINAL = { completed: 'posted', failed: 'voided', cancelled: 'voided' };
/** The shop accounts a USD shop without rates or adjustments ends with: suspense and receivable stay 0. */
const ACCOUNT_KINDS = ['available', 'pending', 'reserved', 'suspense', 'receivable'];
/** The ledger's orphan bound, LEDGER_ORPHAN_HOLD_AFTER_MS (the suite keeps its default). */
const ORPHAN_BOUND_MS = 900_000;
/** numeric(38,18): amounts are compared exactly, in 10^-18 units. */
const SCALE = 18;

/**
 * A decimal string as an exact integer of 10^-18 units.
 * @param {string} s
 */
export function units(s) {
  const [int, frac = ''] = s.trim().split('.');
  const sign = int.startsWith('-') ? -1n : 1n;
  const whole = BigInt(int.replace('-', '') || '0');
  return sign * (whole * 10n ** BigInt(SCALE) + BigInt(frac.padEnd(SCALE, '0').slice(0, SCALE) || '0'));
}

/**
 * Back to a decimal string, without trailing zeros.
 * @param {bigint} u
 */
export function decimal(u) {
  const neg = u < 0n;
  const abs = neg ? -u : u;
  const div = 10n ** BigInt(SCALE);
  const frac = (abs % div).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${abs / div}${frac ? `.${frac}` : ''}`;
}

/**
 * @typedef {{ lost: number, doubled: number, balances: Record<string, string>, expected: Record<string, string>,
 *   findings: string[], problems: string[], counts: Record<string, number> }} Books
 *   lost: postings the load's objects call for that are missing (a credit, a settlement, a hold's
 *   post or void, a refund's debit) and holds left open; doubled: postings there more than once,
 *   or there for an object that does not call for them; findings: the ledger's invariants broken
 */

/**
 * What the books must say, from the load's journal and the final status of each object (the
 * reconciler already held those against what the merchant was told), against what they say.
 * No fees are configured, so each fee is 0: a paid order credits its amount, a payout holds its amount.
 * @param {{ journal: import('./reconcile.mjs').Journal, orders: Map<string, string>, payouts: Map<string, string>,
 *   ledger: Awaited<ReturnType<typeof readLedger>>, orphanBoundMs?: number }} input  orders, payouts: id → status
 *   in the service's table; orphanBoundMs: the ledger's LEDGER_ORPHAN_HOLD_AFTER_MS
 * @returns {Books}
 */
export function judgeBooks({ journal, orders, payouts, ledger, orphanBoundMs = ORPHAN_BOUND_MS }) {
  /** @type {string[]} */
  const problems = [];
  let lost = 0;
  let doubled = 0;
  /** @type {Map<string, number>} `<kind> <source id>` → transactions */
  const txCount = new Map();
  for (const t of ledger.transactions)
    // A settlement counts once for each credit it lists (decision 351); one from before names its credit as source.
    for (const source of t.kind === 'settlement' && t.settled_credits ? t.settled_credits : [t.source_id])
      txCount.set(`${t.kind} ${source}`, (txCount.get(`${t.kind} ${source}`) ?? 0) + 1);
  const count = (/** @type {string} */ kind, /** @type {string} */ id) => txCount.get(`${kind} ${id}`) ?? 0;
  /** When the latest transaction of `kind` for `id` was booked (ms; NaN when none says). */
  const latest = (/** @type {string} */ kind, /** @type {string} */ id) =>
    Math.max(...ledger.transactions.filter((t) => t.kind === kind && t.source_id === id).map((t) => t.at ?? NaN));
  /** Whether the payout's last void came at least the orphan bound after its last reservation. */
  const swept = (/** @type {string} */ id) =>
    latest('payout_voided', id) - latest('payout_reserved', id) >= orphanBoundMs;
  /** Exactly `want` transactions of `kind` for `id`: fewer are lost, more doubled. */
  const exactly = (/** @type {string} */ kind, /** @type {string} */ id, /** @type {number} */ want, what = '') => {
    const n = count(kind, id);
    if (n < want) {
      lost += want - n;
      problems.push(`lost: ${kind} of ${id}${what}: ${n} of ${want}`);
    } else if (n > want) {
      doubled += n - want;
      problems.push(`doubled: ${kind} of ${id}${what}: ${n}, should be ${want}`);
    }
  };
  let available = 0n;
  let reserved = 0n;
  /** Per order, its refund holds' generations before the last. */
  const earlierRefundHolds = new Map();
  for (const h of ledger.refundHolds)
    earlierRefundHolds.set(h.order_id, (earlierRefundHolds.get(h.order_id) ?? 0) + (h.generation ?? 1) - 1);
  const orderIds = new Set(journal.order.values());
  for (const id of orderIds) {
    const status = orders.get(id);
    if (status === undefined) continue; // the reconciler counts it lost
    const paid = PAID.includes(status);
    exactly('order_completed', id, paid ? 1 : 0, ` (${status})`);
    if (paid) available += units(journal.amounts.get(id) ?? createRequest('order', 'x').amount);
    const refunds = journal.refunds.get(id) ?? [];
    // A refund's hold voided and held again (decision 355) was reserved once per generation.
    exactly('refund_reserved', id, refunds.length + (earlierRefundHolds.get(id) ?? 0));
    exactly('refund_voided', id, earlierRefundHolds.get(id) ?? 0);
    exactly('order_refunded', id, refunds.length);
    for (const amount of refunds) available -= units(amount);
  }
  // Each credit settled once (the delay is 0); credits of orders the load does not know are doubled.
  for (const t of ledger.transactions.filter((x) => x.kind === 'order_completed')) {
    exactly('settlement', t.id, 1, ` (the credit of order ${t.source_id})`);
    if (!orderIds.has(t.source_id)) {
      doubled += 1;
      problems.push(`doubled: a credit of order ${t.source_id}, which the load never created`);
    }
  }
  const holds = new Map(ledger.holds.map((h) => [h.payout_id, h.status]));
  // A hold voided as an orphan and asked for again is its row's next generation (decision 355):
  // each generation before the last was reserved and voided once.
  const generations = new Map(ledger.holds.map((h) => [h.payout_id, h.generation ?? 1]));
  const payoutIds = new Set(journal.payout.values());
  const payoutAmount = units(createRequest('payout', 'x').amount);
  for (const id of payoutIds) {
    const status = payouts.get(id);
    if (status === undefined) continue;
    const earlier = (generations.get(id) ?? 1) - 1;
    exactly('payout_reserved', id, 1 + earlier);
    const final = /** @type {Record<string, string>} */ (PAYOUT_FINAL)[status];
    exactly('payout_posted', id, final === 'posted' ? 1 : 0, ` (${status})`);
    // A payout completed after the orphan sweep voided its hold (decision 355) is posted from the
    // balance on top of that void: one void more, not doubled, but only where the void came the
    // orphan bound after the reservation, as the sweep's do. Any other extra void is a fault.
    const voidedThenPosted = final === 'posted' && count('payout_voided', id) === earlier + 1 && swept(id) ? 1 : 0;
    exactly('payout_voided', id, earlier + voidedThenPosted + (final === 'voided' ? 1 : 0), ` (${status})`);
    const hold = holds.get(id);
    if (hold !== (final ?? 'held')) {
      lost += 1;
      problems.push(`lost: the hold of payout ${id} (${status}) is ${hold ?? 'missing'}, should be ${final ?? 'held'}`);
    }
    if (final !== 'voided') available -= payoutAmount;
    if (!final) reserved += payoutAmount;
  }
  for (const [id, status] of holds)
    if (status === 'held' && !payoutIds.has(id)) {
      lost += 1;
      problems.push(`lost: a hold left open for payout ${id}, which the load never got`);
    }
  for (const h of ledger.refundHolds)
    if (h.status !== 'posted') {
      lost += 1;
      problems.push(`lost: the hold of refund ${h.refund_id} (order ${h.order_id}) is ${h.status}, should be posted`);
    }
  /** @type {Record<string, string>} */
  const expected = {
    available: decimal(available),
    pending: '0',
    reserved: decimal(reserved),
    suspense: '0',
    receivable: '0',
  };
  /** @type {Record<string, string>} */
  const balances = Object.fromEntries(ACCOUNT_KINDS.map((k) => [k, '0']));
  for (const a of ledger.accounts) {
    if (a.currency !== 'USD') problems.push(`an account in ${a.currency}: ${a.kind} ${a.balance}`);
    else balances[a.kind] = decimal(units(a.balance));
  }
  for (const k of ACCOUNT_KINDS)
    if (balances[k] !== expected[k]) problems.push(`balance: ${k} ${balances[k]} USD, expected ${expected[k]}`);
  const findings = ledger.findings.map((f) => `${f.check} ${f.subject}: ${f.detail}`);
  const counts = Object.fromEntries(
    ['order_completed', 'settlement', 'payout_posted', 'payout_voided', 'order_refunded'].map((k) => [
      k,
      ledger.transactions.filter((t) => t.kind === k).length,
    ]),
  );
  counts.held = [...holds.values()].filter((s) => s === 'held').length;
  return { lost, doubled, balances, expected, findings, problems, counts };
}

/** The books are as they must be. @param {Books} b */
export const booksHold = (b) =>
  b.lost === 0 &&
  b.doubled === 0 &&
  b.findings.length === 0 &&
  b.problems.every((p) => !p.startsWith('balance') && !p.startsWith('an account'));

/**
 * The table's cells: postings lost / doubled, and the balances and invariants ("ok", or what is off).
 * @param {Books | undefined} b
 */
export function booksCells(b) {
  if (!b) return { postings: '–', balances: '–' };
  const off = b.problems.filter((p) => p.startsWith('balance') || p.startsWith('an account'));
  const balances = [
    ...off.map((p) => p.replace(/^balance: /, '')),
    ...(b.findings.length ? [`${b.findings.length} invariant finding(s)`] : []),
  ];
  return { postings: `${b.lost} / ${b.doubled}`, balances: balances.length ? balances.join('; ') : 'ok' };
}

/**
 * The ledger's rows of the shop and its invariants, in the scenario's database.
 * @param {string} dbUrl
 * @param {string} shopId
 */
export async function readLedger(dbUrl, shopId) {
  const { Client } = require('pg');
  const { checkBooks } = require(path.join(ROOT, 'dist/libs/ledger-domain/src/books-checks.js'));
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const q = async (/** @type {string} */ sql, /** @type {unknown[]} */ params = []) =>
      (await c.query(sql, params)).rows;
    return {
      accounts: /** @type {{ kind: string, currency: string, balance: string }[]} */ (
        await q(`SELECT kind, currency, balance::text AS balance FROM ledger.accounts WHERE shop_id = $1`, [shopId])
      ),
      transactions:
        /** @type {{ id: string, kind: string, source_id: string, settled_credits: string[] | null, at?: number }[]} */ (
          await q(
            `SELECT id::text AS id, kind, source_id, settled_credits::text[] AS settled_credits,
                    (extract(epoch FROM created_at) * 1000)::float8 AS at
               FROM ledger.transactions WHERE shop_id = $1`,
            [shopId],
          )
        ),
      holds: /** @type {{ payout_id: string, status: string, generation?: number }[]} */ (
        await q(`SELECT payout_id::text AS payout_id, status, generation FROM ledger.holds WHERE shop_id = $1`, [
          shopId,
        ])
      ),
      refundHolds: /** @type {{ refund_id: string, order_id: string, status: string, generation?: number }[]} */ (
        await q(
          `SELECT refund_id::text AS refund_id, order_id::text AS order_id, status, generation
             FROM ledger.refund_holds WHERE shop_id = $1`,
          [shopId],
        )
      ),
      /** @type {{ check: string, subject: string, detail: string }[]} */
      findings: await checkBooks(q, 'ledger'),
    };
  } finally {
    await c.end();
  }
}

/**
 * id → status of the shop's rows in `table` (none where its service never ran there).
 * @param {string} dbUrl
 * @param {string} table
 * @param {string} shopId
 */
async function statuses(dbUrl, table, shopId) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const exists = await c.query('SELECT to_regclass($1) IS NOT NULL AS yes', [table]);
    if (!exists.rows[0].yes) return new Map();
    const r = await c.query(`SELECT id::text AS id, status FROM ${table} WHERE shop_id = $1`, [shopId]);
    return new Map(r.rows.map((/** @type {{ id: string, status: string }} */ x) => [x.id, x.status]));
  } finally {
    await c.end();
  }
}

/**
 * Checks the books until they hold or `withinMs` passed (the ledger may still be taking the last
 * events, the sweep settling the last credits); the last judgement either way.
 * @param {{ dbUrl: string, shopId: string, journal: import('./reconcile.mjs').Journal, withinMs?: number }} o
 * @returns {Promise<Books>}
 */
export async function checkTheBooks({ dbUrl, shopId, journal, withinMs = 60_000 }) {
  const until = Date.now() + withinMs;
  for (;;) {
    const [orders, payouts, ledger] = await Promise.all([
      statuses(dbUrl, 'orders.orders', shopId),
      statuses(dbUrl, 'payouts.payouts', shopId),
      readLedger(dbUrl, shopId),
    ]);
    const books = judgeBooks({ journal, orders, payouts, ledger });
    if (booksHold(books) || Date.now() > until) return books;
    await sleep(1000);
  }
}
