// The fault suite's shop: made through the operators' API as a merchant's would be (company, shop,
// methods), its payments settled at once (settlement delay 0, issue 29), and funded before the load
// by an order of its own, so that the ledger holds the load's payouts and refunds instead of refusing
// them for want of balance.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { request } from '../bench/load.mjs';
import { providerCallback, seedMethods, untilAnswered } from './client.mjs';

const require = createRequire(import.meta.url);
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A company and its shop (callbacks to `callbackUrl`), the shop's methods where `methods`, and a
 * settlement delay of 0 through `PUT /ops/v1/shops/{id}/settlement` where a ledger runs.
 * @param {{ agent: import('node:http').Agent, opsApi: string, opsToken: string, callbackUrl: string,
 *   methods: boolean, ledger: boolean }} o
 * @returns {Promise<{ id: string, apiKey: string }>}
 */
export async function openShop({ agent, opsApi, opsToken, callbackUrl, methods, ledger }) {
  const ops = { authorization: `Bearer ${opsToken}` };
  /** @param {string} path @param {unknown} body @param {string} [method] */
  const ask = async (path, body, method = 'POST') => {
    const res = await request(agent, `${opsApi}/ops/v1/${path}`, { method, headers: ops, body });
    if (res.status >= 300) throw new Error(`${method} /ops/v1/${path} failed: ${res.status} ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body);
  };
  const company = await ask('companies', { name: 'Faults Company' });
  const shop = await ask(`companies/${company.id}/shops`, { name: 'Faults Shop', callbackUrl });
  if (!shop.apiKey) throw new Error(`creating the shop failed: ${JSON.stringify(shop).slice(0, 300)}`);
  if (methods) await seedMethods(agent, opsApi, ops, shop.id);
  if (ledger)
    await ask(
      `shops/${shop.id}/settlement`,
      { settlementDelaySeconds: 0, reason: 'fault suite: payouts and refunds draw on what the load was paid' },
      'PUT',
    );
  return { id: shop.id, apiKey: shop.apiKey };
}

/**
 * What the load will draw on the balance at most: every payout (amount, no fee) and every refund.
 * As an amount the sandbox takes and never calls back for (.99), with a margin of 10.
 * @param {{ payouts: number, payoutAmount: string, refunds: number, refundAmount: string }} o
 */
export function fundingAmount({ payouts, payoutAmount, refunds, refundAmount }) {
  const cents = payouts * Math.round(Number(payoutAmount) * 100) + refunds * Math.round(Number(refundAmount) * 100);
  return `${Math.ceil(cents / 100) + 10}.99`;
}

/**
 * Funds the shop: one order of `amount`, paid (its provider callback), journalled as the load's
 * orders are (so the reconciler and the books check count it), then waits until the ledger has
 * it available (the settlement sweep moves it from pending).
 * @param {{ agent: import('node:http').Agent, gateway: () => string, ingest: () => string,
 *   auth: Record<string, string>, amount: string, sandboxSecret: string, dbUrl: string, shopId: string,
 *   journal: import('./reconcile.mjs').Journal, answers: Map<string, number> }} o
 */
export async function fundShop({
  agent,
  gateway,
  ingest,
  auth,
  amount,
  sandboxSecret,
  dbUrl,
  shopId,
  journal,
  answers,
}) {
  const merchantId = `faults-funding-${randomUUID().slice(0, 8)}`;
  const deadline = Date.now() + 60_000;
  const created = await untilAnswered(
    agent,
    () => `${gateway()}/order`,
    {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': merchantId },
      body: { order: { merchantOrderId: merchantId, cost: { amount, currency: 'USD' } } },
    },
    () => deadline,
    answers,
  );
  if (!created) throw new Error('the funding order was never answered 2xx');
  const id = JSON.parse(created.body).id;
  journal.order.set(merchantId, id);
  journal.amounts.set(id, amount);
  const callback = providerCallback('order', id, sandboxSecret, amount);
  const paid = await untilAnswered(
    agent,
    ingest,
    { method: 'POST', headers: callback.headers, body: callback.body },
    () => deadline,
    answers,
  );
  if (!paid) throw new Error("the funding order's provider callback was never answered 200");
  journal.callbacks.set(id, callback.eventId);
  for (;;) {
    const available = await availableOf(dbUrl, shopId);
    if (available >= Number(amount)) return { orderId: id, amount };
    if (Date.now() > deadline)
      throw new Error(`the funding order of ${amount} USD was not available within 60 s (available ${available})`);
    await sleep(250);
  }
}

/**
 * The shop's available USD in the ledger's books (0 before its first credit); a figure to wait on,
 * not to judge by (the books check reads the exact decimals).
 * @param {string} dbUrl
 * @param {string} shopId
 */
async function availableOf(dbUrl, shopId) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const r = await c
      .query(
        `SELECT balance::text AS balance FROM ledger.accounts WHERE shop_id = $1 AND kind = 'available' AND currency = 'USD'`,
        [shopId],
      )
      .catch(() => ({ rows: [] }));
    return Number(r.rows[0]?.balance ?? 0);
  } finally {
    await c.end();
  }
}
