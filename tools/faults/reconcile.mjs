// The reconciler: after a scenario settles, compares what the load generator was told (its journal of
// 2xx answers) with the scenario's database (orders, payouts, P2P transactions) and what the merchant
// receiver got. Losses, duplicated effects and callbacks out of order are counted apart; all must be 0.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The kinds of object the load creates: where each lives, which provider callback `kind` moves it,
 * its statuses and the status changes its fold can make (libs/orders-domain, libs/transfers-domain;
 * README "The order lifecycle"). A status may follow itself where a change of status code alone
 * makes a new sequence (need_action for another reason).
 */
export const KINDS = /** @type {const} */ ({
  order: {
    table: 'orders.orders',
    merchantColumn: 'merchant_order_id',
    providerKind: 'payment',
    transitions: {
      registered: ['in_progress', 'need_action', 'completed', 'failed', 'cancelled'],
      in_progress: ['need_action', 'completed', 'failed', 'cancelled'],
      need_action: ['in_progress', 'need_action', 'completed', 'failed', 'cancelled'],
      completed: ['partially_refunded', 'refunded'],
      partially_refunded: ['partially_refunded', 'refunded'],
      refunded: [],
      cancelled: [],
      failed: [],
    },
  },
  payout: {
    table: 'payouts.payouts',
    merchantColumn: 'merchant_payout_id',
    providerKind: 'payout',
    transitions: transferTransitions(),
  },
  p2p: {
    table: 'p2p.transactions',
    merchantColumn: 'merchant_p2p_id',
    providerKind: 'p2p',
    transitions: transferTransitions(),
  },
});

/** @typedef {keyof typeof KINDS} Kind */
export const KIND_NAMES = /** @type {Kind[]} */ (Object.keys(KINDS));

/** Payouts and P2P share one fold (libs/transfers-domain). */
function transferTransitions() {
  return {
    registered: ['in_progress', 'need_action', 'completed', 'failed', 'cancelled'],
    in_progress: ['need_action', 'completed', 'failed'],
    need_action: ['in_progress', 'need_action', 'completed', 'failed'],
    completed: [],
    failed: [],
    cancelled: [],
  };
}

/**
 * @typedef {{ id: string, merchant_id: string, status: string, sequence: number }} Row
 * @typedef {{ eventId: string, objectType?: string, objectId: string, sequence: number, status: string,
 *   previousStatus?: string | null }} Delivery  as the merchant received them, in arrival order
 * @typedef {Record<Kind, Map<string, string>> & { callbacks: Map<string, string>,
 *   amounts: Map<string, string>, refunds: Map<string, string[]>, refused: Map<string, string> }} Journal
 *   per kind: merchant id → id of every create answered 2xx; callbacks: object id → eventId of
 *   every provider callback answered 200; amounts: object id → its amount where not its kind's
 *   (the funding order); refunds: order id → the amount of each refund answered 200; refused:
 *   merchant id → the status code of a create or refund refused for balance (1-06-02, 1-06-03)
 */

/** An empty journal. */
export function newJournal() {
  return /** @type {Journal} */ ({
    order: new Map(),
    payout: new Map(),
    p2p: new Map(),
    callbacks: new Map(),
    amounts: new Map(),
    refunds: new Map(),
    refused: new Map(),
  });
}

/** What a paid object may be once its provider's success was taken: completed, or an order refunded since. */
export const PAID = ['completed', 'partially_refunded', 'refunded'];

/**
 * Every order, payout and P2P transaction of the shop in the scenario's database (none of a kind
 * whose service never ran there: its table does not exist).
 * @param {string} dbUrl
 * @param {string} shopId
 * @returns {Promise<Record<Kind, Row[]>>}
 */
export async function objectsOf(dbUrl, shopId) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    /** @type {Record<string, Row[]>} */
    const rows = {};
    for (const kind of KIND_NAMES) {
      const { table, merchantColumn } = KINDS[kind];
      const exists = await c.query('SELECT to_regclass($1) IS NOT NULL AS yes', [table]);
      if (!exists.rows[0].yes) {
        rows[kind] = [];
        continue;
      }
      const r = await c.query(
        `SELECT id, ${merchantColumn} AS merchant_id, status, sequence FROM ${table} WHERE shop_id = $1`,
        [shopId],
      );
      rows[kind] = r.rows;
    }
    return /** @type {Record<Kind, Row[]>} */ (rows);
  } finally {
    await c.end();
  }
}

/**
 * @param {{ journal: Journal, rows: Record<Kind, Row[]>, deliveries: Delivery[] }} input
 * @returns {{ lost: number, duplicated: number, misordered: number, problems: string[] }}
 */
export function reconcile({ journal, rows, deliveries }) {
  /** @type {string[]} */
  const problems = [];
  let lost = 0;
  let duplicated = 0;
  const events = new Map(); // objectId → Map<sequence, Set<eventId>>
  const statusEvents = new Map(); // objectId → Map<status, Set<eventId>>
  for (const d of deliveries) {
    if (!events.has(d.objectId)) events.set(d.objectId, new Map());
    if (!statusEvents.has(d.objectId)) statusEvents.set(d.objectId, new Map());
    const seq = events.get(d.objectId);
    if (!seq.has(d.sequence)) seq.set(d.sequence, new Set());
    seq.get(d.sequence).add(d.eventId);
    const st = statusEvents.get(d.objectId);
    if (!st.has(d.status)) st.set(d.status, new Set());
    st.get(d.status).add(d.eventId);
  }
  /** @type {Map<string, Row & { kind: Kind }>} */
  const byId = new Map();
  for (const kind of KIND_NAMES) {
    const byMerchantId = new Map();
    for (const r of rows[kind] ?? []) {
      byMerchantId.set(r.merchant_id, [...(byMerchantId.get(r.merchant_id) ?? []), r]);
      byId.set(r.id, { ...r, kind });
    }
    const statuses = new Set(Object.keys(KINDS[kind].transitions));
    for (const [merchantId, id] of journal[kind] ?? []) {
      const found = byMerchantId.get(merchantId) ?? [];
      const row = byId.get(id);
      if (found.length === 0 || !row) {
        lost += 1;
        problems.push(`lost: acknowledged ${kind} ${merchantId} (${id}) is not in the database`);
        continue;
      }
      if (found.length > 1) {
        duplicated += found.length - 1;
        problems.push(`duplicated: ${found.length} ${kind}s for merchant id ${merchantId}`);
      }
      if (!statuses.has(row.status)) problems.push(`invalid state ${row.status} of ${kind} ${id}`);
      // Every status change (sequence 1..current) reached the merchant, each with one eventId.
      const seqs = events.get(id) ?? new Map();
      for (let s = 1; s <= row.sequence; s++) {
        const ids = seqs.get(s);
        if (!ids) {
          lost += 1;
          problems.push(`lost: ${kind} ${id} sequence ${s} never reached the merchant`);
        } else if (ids.size > 1) {
          duplicated += ids.size - 1;
          problems.push(`duplicated: ${kind} ${id} sequence ${s} delivered under ${ids.size} eventIds`);
        }
      }
      // A status the object reached twice under different events is a callback applied twice.
      for (const [status, ids] of statusEvents.get(id) ?? []) {
        if (ids.size > 1 && !KINDS[kind].transitions[status]?.includes(status)) {
          duplicated += ids.size - 1;
          problems.push(`duplicated: ${kind} ${id} went to ${status} ${ids.size} times`);
        }
      }
    }
  }
  for (const [objectId] of journal.callbacks) {
    const row = byId.get(objectId);
    if (!row || !(row.kind === 'order' ? PAID : ['completed']).includes(row.status)) {
      lost += 1;
      problems.push(`lost: callback for ${objectId} answered 200 but it is ${row?.status ?? 'missing'}`);
    }
  }
  const order = ordering({ deliveries, byId });
  problems.push(...order.problems);
  return { lost, duplicated, misordered: order.misordered, problems };
}

/**
 * Per object, what the merchant saw must follow the sequence numbers (one aggregate's events go out
 * in order: the outbox relay is its one publisher, merchant-callbacks delivers an object's callbacks
 * one after the other): the first arrival of each sequence comes after the first arrival of the one
 * before; each callback's previousStatus is the status of the sequence before (sequence 1: none);
 * each change is one the object's fold can make; the last sequence delivered of an object whose
 * every change arrived says the status it has. A redelivery (the same eventId again, at least once)
 * is no disorder by itself.
 * @param {{ deliveries: Delivery[], byId: Map<string, Row & { kind: Kind }> }} input
 */
export function ordering({ deliveries, byId }) {
  /** @type {string[]} */
  const problems = [];
  let misordered = 0;
  /** @type {Map<string, Map<number, { at: number, d: Delivery }>>} objectId → sequence → first arrival */
  const first = new Map();
  deliveries.forEach((d, at) => {
    if (!first.has(d.objectId)) first.set(d.objectId, new Map());
    const seqs = /** @type {Map<number, { at: number, d: Delivery }>} */ (first.get(d.objectId));
    if (!seqs.has(d.sequence)) seqs.set(d.sequence, { at, d });
  });
  for (const [objectId, seqs] of first) {
    const row = byId.get(objectId);
    const kind = row?.kind ?? /** @type {Kind | undefined} */ (seqs.values().next().value?.d.objectType);
    const transitions =
      kind && KINDS[kind] ? /** @type {Record<string, readonly string[]>} */ (KINDS[kind].transitions) : undefined;
    const sorted = [...seqs.keys()].sort((a, b) => a - b);
    for (const [i, s] of sorted.entries()) {
      const { at, d } = /** @type {{ at: number, d: Delivery }} */ (seqs.get(s));
      const prev = i > 0 ? seqs.get(sorted[i - 1]) : undefined;
      const bad = (/** @type {string} */ why) => {
        misordered += 1;
        problems.push(`out of order: ${kind ?? 'object'} ${objectId} sequence ${s} ${why}`);
      };
      if (prev && prev.at > at) bad(`arrived before sequence ${sorted[i - 1]}`);
      if (s === 1 && d.previousStatus !== undefined && d.previousStatus !== null)
        bad(`is the first but says it came from ${d.previousStatus}`);
      if (prev && sorted[i - 1] === s - 1 && d.previousStatus !== undefined) {
        if (d.previousStatus !== prev.d.status)
          bad(`says it came from ${d.previousStatus}; sequence ${s - 1} was ${prev.d.status}`);
        else if (transitions && !transitions[prev.d.status]?.includes(d.status))
          bad(`goes ${prev.d.status} → ${d.status}, which is no change its fold makes`);
      }
    }
    const last = sorted[sorted.length - 1];
    if (row && last === row.sequence && sorted.length === row.sequence) {
      const status = seqs.get(last)?.d.status;
      if (status !== row.status) {
        misordered += 1;
        problems.push(
          `out of order: ${row.kind} ${objectId} is ${row.status}, its last callback (${last}) said ${status}`,
        );
      }
    }
  }
  return { misordered, problems };
}
