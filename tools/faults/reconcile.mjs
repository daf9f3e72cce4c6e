// The reconciler: after a scenario settles, compares what the load generator was told (its journal of
// 2xx answers) with the orders database and what the merchant receiver got. Losses and duplicated
// effects are counted separately; both must be 0.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const VALID = new Set([
  'registered',
  'in_progress',
  'need_action',
  'completed',
  'partially_refunded',
  'refunded',
  'cancelled',
  'failed',
]);

export async function ordersOf(dbUrl, shopId) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const r = await c.query('SELECT id, merchant_order_id, status, sequence FROM orders.orders WHERE shop_id = $1', [
      shopId,
    ]);
    return r.rows;
  } finally {
    await c.end();
  }
}

/**
 * journal: { orders: Map<merchantOrderId, id>, callbacks: Map<orderId, eventId> }
 * deliveries: [{ eventId, objectId, sequence, status }] as the merchant received them.
 */
export function reconcile({ journal, rows, deliveries }) {
  const problems = [];
  let lost = 0;
  let duplicated = 0;
  const byMerchantId = new Map();
  const byId = new Map();
  for (const r of rows) {
    byMerchantId.set(r.merchant_order_id, [...(byMerchantId.get(r.merchant_order_id) ?? []), r]);
    byId.set(r.id, r);
  }
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
  for (const [merchantOrderId, id] of journal.orders) {
    const found = byMerchantId.get(merchantOrderId) ?? [];
    if (found.length === 0 || !byId.has(id)) {
      lost += 1;
      problems.push(`lost: acknowledged order ${merchantOrderId} (${id}) is not in the database`);
      continue;
    }
    if (found.length > 1) {
      duplicated += found.length - 1;
      problems.push(`duplicated: ${found.length} orders for merchantOrderId ${merchantOrderId}`);
    }
    const row = byId.get(id);
    if (!VALID.has(row.status)) problems.push(`invalid state ${row.status} of order ${id}`);
    // Every status change (sequence 1..current) reached the merchant, each with one eventId.
    const seqs = events.get(id) ?? new Map();
    for (let s = 1; s <= row.sequence; s++) {
      const ids = seqs.get(s);
      if (!ids) {
        lost += 1;
        problems.push(`lost: order ${id} sequence ${s} never reached the merchant`);
      } else if (ids.size > 1) {
        duplicated += ids.size - 1;
        problems.push(`duplicated: order ${id} sequence ${s} delivered under ${ids.size} eventIds`);
      }
    }
    // A status the order reached twice under different events is a callback applied twice.
    for (const [status, ids] of statusEvents.get(id) ?? []) {
      if (ids.size > 1) {
        duplicated += ids.size - 1;
        problems.push(`duplicated: order ${id} went to ${status} ${ids.size} times`);
      }
    }
  }
  for (const [orderId] of journal.callbacks) {
    const row = byId.get(orderId);
    if (!row || row.status !== 'completed') {
      lost += 1;
      problems.push(`lost: callback for ${orderId} answered 200 but the order is ${row?.status ?? 'missing'}`);
    }
  }
  return { lost, duplicated, problems };
}

/** True when every acknowledged thing has visibly taken effect: the scenario has settled. */
export function settled({ journal, rows, deliveries }) {
  const r = reconcile({ journal, rows, deliveries });
  return r.lost === 0;
}
