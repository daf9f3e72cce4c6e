// The fault suite's clients: a merchant creating orders, payouts and P2P transactions through the
// gateway (retrying with the same Idempotency-Key until answered 2xx), a provider sending signed
// callbacks, an operator seeding the shop's methods, and the check that every service answers.
import { randomUUID } from 'node:crypto';
import { request } from '../bench/load.mjs';
import { signSandbox } from '../stack/system.mjs';
import { KINDS } from './reconcile.mjs';
import { readiness } from './services.mjs';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** How long a merchant (or provider) waits for an answer before it gives up and retries. */
export const CLIENT_TIMEOUT_MS = 10_000;

/**
 * One HTTP request that gives up after CLIENT_TIMEOUT_MS, as a real client does.
 * @param {import('node:http').Agent} agent
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: unknown }} spec
 * @returns {Promise<{ status: number, body: string }>}
 */
function requestWithTimeout(agent, url, spec) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  return Promise.race([
    request(agent, url, spec),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('client timeout')), CLIENT_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The status code of a refusal the load expects (issue 29): a payout the shop's available balance
 * cannot cover (1-06-02), a refund it cannot cover (1-06-03). The answer to that request for good
 * (the gateway stores a 422 under its key), so it is counted, not retried.
 */
export const BALANCE_REFUSALS = ['1-06-02', '1-06-03'];

/**
 * The catalogue status code of a 422 the load expects (BALANCE_REFUSALS), else undefined.
 * @param {{ status: number, body: string }} res
 */
export function balanceRefusal(res) {
  if (res.status !== 422) return undefined;
  try {
    const code = JSON.parse(res.body).statusCode;
    return BALANCE_REFUSALS.includes(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends until answered 2xx: a merchant (or provider) retries no answer, a timeout, a 5xx, a 409
 * (the same key still in progress) and a 429 with the same key; a balance refusal (`balanceRefusal`)
 * is returned with `refused` set to its status code; any other 4xx throws. `urlOf` gives the URL of
 * each try (the suite spreads them over the instances of a service, as a load balancer would).
 * `answers` counts what came back other than a 2xx, by status (or "no answer"). Null once
 * `deadlineOf()` has passed.
 * @param {import('node:http').Agent} agent
 * @param {() => string} urlOf
 * @param {{ method?: string, headers?: Record<string, string>, body?: unknown }} spec
 * @param {() => number} deadlineOf
 * @param {Map<string, number>} answers
 * @returns {Promise<{ status: number, body: string, refused?: string } | null>}
 */
export async function untilAnswered(agent, urlOf, spec, deadlineOf, answers) {
  for (;;) {
    let outcome;
    const url = urlOf();
    try {
      const res = await requestWithTimeout(agent, url, spec);
      if (res.status >= 200 && res.status < 300) return res;
      const refused = balanceRefusal(res);
      if (refused) {
        // Counted with the start of its detail: why the ledger refused (the balance, or no credit yet).
        const tag = `${res.status} ${refused} (${String(JSON.parse(res.body).detail ?? '').slice(0, 70)}…)`;
        answers.set(tag, (answers.get(tag) ?? 0) + 1);
        return { ...res, refused };
      }
      if (res.status < 500 && res.status !== 409 && res.status !== 429)
        throw new Error(`${url} → ${res.status} ${res.body.slice(0, 200)}`);
      outcome = String(res.status);
    } catch (e) {
      const err = /** @type {Error} */ (e);
      if (err.message?.includes('→')) throw err;
      outcome = err.message === 'client timeout' ? 'timeout' : 'no answer';
    }
    answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
    if (Date.now() > deadlineOf()) return null;
    await sleep(200);
  }
}

/** @typedef {import('./reconcile.mjs').Kind} Kind */

/**
 * An answer in a few words: its status and a problem's title.
 * @param {{ status: number, body: string }} res
 */
function briefly(res) {
  if (!res.status) return `no answer (${res.body.slice(0, 60)})`;
  try {
    const title = JSON.parse(res.body).title;
    if (typeof title === 'string') return `${res.status} ${title}`;
  } catch {
    /* not JSON */
  }
  return `${res.status} ${res.body.slice(0, 60)}`;
}

/**
 * The merchant's create request of one object: amounts ending in .99, which the sandbox takes and
 * never calls back for (the suite sends the provider's callback itself). The payout goes through
 * the shop's `wallet-payout` method (seedMethods).
 * @param {Kind} kind
 * @param {string} merchantId
 */
export function createRequest(kind, merchantId) {
  if (kind === 'order')
    return {
      path: '/order',
      amount: '10.99',
      body: { order: { merchantOrderId: merchantId, cost: { amount: '10.99', currency: 'USD' } } },
    };
  if (kind === 'payout')
    return {
      path: '/payouts',
      amount: '25.99',
      body: {
        payout: { merchantPayoutId: merchantId, method: 'wallet-payout', cost: { amount: '25.99', currency: 'USD' } },
        instrumentType: 'wallet',
        walletType: 'personal',
        payee: { walletId: 'w-1001', firstName: 'Jane', lastName: 'Doe' },
      },
    };
  return {
    path: '/p2p',
    amount: '12.99',
    body: {
      p2p: { merchantP2pId: merchantId, cost: { amount: '12.99', currency: 'USD' } },
      sender: { cardNumber: '4111111111111111' },
      recipient: { cardNumber: '8600123456789012' },
    },
  };
}

/**
 * The merchant's refund of `amount` USD of a paid order (POST /order/refund; the ledger holds its
 * debit before the orders service accepts it, decision 276).
 * @param {string} orderId
 * @param {string} amount
 */
export function refundRequest(orderId, amount) {
  return { path: '/order/refund', body: { orderId, cost: { amount, currency: 'USD' } } };
}

/**
 * The provider's signed success callback for one object (eventId `faults-<id>`), for the amount
 * its create asked (`amount` where another: the funding order's).
 * @param {Kind} kind
 * @param {string} id
 * @param {string} secret
 * @param {string} [amount]
 */
export function providerCallback(kind, id, secret, amount = createRequest(kind, 'x').amount) {
  const eventId = `faults-${id}`;
  const body = JSON.stringify({
    eventId,
    kind: KINDS[kind].providerKind,
    reference: id,
    status: 'success',
    amount,
    currency: 'USD',
  });
  return { eventId, body, headers: { 'x-signature': signSandbox(secret, body) } };
}

/**
 * The kinds of `counts` spread evenly over one sequence (3 orders, 1 payout, 1 P2P → o o p o q …),
 * so that every part of the load meets the fault.
 * @param {Record<Kind, number>} counts
 * @returns {Kind[]}
 */
export function loadPlan(counts) {
  /** @type {{ kind: Kind, at: number }[]} */
  const items = [];
  for (const [kind, n] of /** @type {[Kind, number][]} */ (Object.entries(counts)))
    for (let j = 0; j < n; j++) items.push({ kind, at: (j + 0.5) / n });
  return items.sort((a, b) => a.at - b.at).map((i) => i.kind);
}

/**
 * The shop's payment and payout methods, through the operators' API (as `npm start` seeds the demo
 * shop's): payouts need a payout method, and GET payment-methods goes through the methods service.
 * @param {import('node:http').Agent} agent
 * @param {string} opsApi
 * @param {Record<string, string>} ops the operator's authorization header
 * @param {string} shopId
 */
export async function seedMethods(agent, opsApi, ops, shopId) {
  const methods = {
    'payment-methods': {
      code: 'cards',
      instrumentType: 'card',
      cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
      currencies: [{ currency: 'USD' }],
      provider: 'sandbox',
    },
    'payout-methods': {
      code: 'wallet-payout',
      instrumentType: 'wallet',
      walletTypes: ['personal', 'company'],
      currencies: [{ currency: 'USD' }],
      provider: 'sandbox',
    },
  };
  for (const [list, body] of Object.entries(methods)) {
    const res = await request(agent, `${opsApi}/ops/v1/shops/${shopId}/${list}`, {
      method: 'POST',
      headers: ops,
      body,
    });
    if (res.status !== 201)
      throw new Error(`seeding the shop's ${list} failed: ${res.status} ${res.body.slice(0, 300)}`);
  }
}

/**
 * @typedef {{ label: string, base: string }} Endpoint  a service instance's HTTP listener
 * @typedef {{ at: number | null, failures: string[] }} Answering
 *   at: when the last probe answered (null when one never did); failures: what never answered, and how
 */

/**
 * Every service answers: each endpoint's readiness is 200, and through each gateway a request
 * reaches each domain service (create an order → orders, a payout → methods, payouts and the
 * ledger's hold, a P2P transaction → p2p, GET payment-methods → methods; the last three where
 * `transfers`: methods, payouts and p2p run; a payout refused for balance, 1-06-02, was answered).
 * Each probe is retried until it succeeds or `until` passes; the objects created go into the
 * journal, so the reconciler checks them too.
 * @param {{ agent: import('node:http').Agent, endpoints: Endpoint[], gateways: string[], shopId: string,
 *   auth: Record<string, string>, journal: import('./reconcile.mjs').Journal, until: number, transfers: boolean }} opts
 * @returns {Promise<Answering>}
 */
export async function everyServiceAnswers({ agent, endpoints, gateways, shopId, auth, journal, until, transfers }) {
  /** @type {string[]} */
  const failures = [];
  /** @type {(() => Promise<string | null>)[]} a probe: null when it answered as it should, else why not */
  const probes = [];
  for (const e of endpoints)
    probes.push(async () => {
      const r = await readiness(e.base);
      return r.ok ? null : `${e.label}: ${r.path} answered ${r.status}`;
    });
  for (const gateway of gateways) {
    for (const kind of /** @type {Kind[]} */ (transfers ? ['order', 'payout', 'p2p'] : ['order'])) {
      const merchantId = `probe-${kind}-${randomUUID().slice(0, 8)}`;
      const { path, body } = createRequest(kind, merchantId);
      probes.push(async () => {
        const res = await request(agent, gateway + path, {
          method: 'POST',
          headers: { ...auth, 'idempotency-key': merchantId },
          body,
        }).catch((/** @type {Error} */ e) => ({ status: 0, body: e.message }));
        if (res.status >= 200 && res.status < 300) {
          journal[kind].set(merchantId, JSON.parse(res.body).id);
          return null;
        }
        // The payouts service asked the ledger, which answered: a refusal for balance is an answer.
        if (balanceRefusal(res)) return null;
        return `POST ${gateway}${path}: ${briefly(res)}`;
      });
    }
    if (transfers)
      probes.push(async () => {
        const res = await request(agent, `${gateway}/shops/${shopId}/payment-methods`, { headers: auth }).catch(
          (/** @type {Error} */ e) => ({ status: 0, body: e.message }),
        );
        return res.status === 200 ? null : `GET ${gateway}/shops/…/payment-methods: ${briefly(res)}`;
      });
  }
  const times = await Promise.all(
    probes.map(async (probe) => {
      for (;;) {
        /** @type {NodeJS.Timeout | undefined} */
        let timer;
        const why = await Promise.race([
          probe(),
          new Promise((r) => {
            timer = setTimeout(() => r(`no answer within ${CLIENT_TIMEOUT_MS / 1000} s`), CLIENT_TIMEOUT_MS);
          }),
        ]).finally(() => clearTimeout(timer));
        if (why === null) return Date.now();
        if (Date.now() > until) {
          failures.push(why);
          return null;
        }
        await sleep(300);
      }
    }),
  );
  return { at: failures.length ? null : Math.max(...times.map(Number)), failures };
}
