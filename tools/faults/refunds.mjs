// The load's refunds (issue 29): a merchant refunds part of a paid order once the order says it
// is completed, under an Idempotency-Key of its own, retried as every request of the load is. The
// ledger holds the refund's debit before the orders service accepts it (decision 276).
import { request } from '../bench/load.mjs';
import { refundRequest, untilAnswered } from './client.mjs';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the order is completed (GET /order/{id}; a refund of an order not paid yet is a 409
 * the gateway would keep for the key), then refunds `amount` of it. A 1-06-03 (retry allowed: the
 * balance does not cover it, or the ledger has not booked the order's credit yet) is the answer
 * to its key for good, so the merchant asks again a second later under a new key, as long as the
 * deadline allows; each such answer is counted in `refusals`. 'refunded' once answered 200, the
 * last status code when the deadline passed after a refusal, null when it passed before any answer.
 * @param {{ agent: import('node:http').Agent, gateway: () => string, auth: Record<string, string>,
 *   orderId: string, merchantId: string, amount: string, deadlineOf: () => number, answers: Map<string, number>,
 *   refusals: (code: string) => void }} o
 * @returns {Promise<'refunded' | string | null>}
 */
export async function refundOnce({ agent, gateway, auth, orderId, merchantId, amount, deadlineOf, answers, refusals }) {
  for (;;) {
    const status = await request(agent, `${gateway()}/order/${orderId}`, { headers: auth })
      .then((res) => (res.status === 200 ? JSON.parse(res.body).status : undefined))
      .catch(() => undefined);
    if (status === 'completed') break;
    if (Date.now() > deadlineOf()) return null;
    await sleep(200);
  }
  const { path, body } = refundRequest(orderId, amount);
  for (let attempt = 1; ; attempt++) {
    const key = `refund-${merchantId}${attempt > 1 ? `-${attempt}` : ''}`;
    const res = await untilAnswered(
      agent,
      () => gateway() + path,
      { method: 'POST', headers: { ...auth, 'idempotency-key': key }, body },
      deadlineOf,
      answers,
    );
    if (!res) return null;
    if (!res.refused) return 'refunded';
    refusals(res.refused);
    if (Date.now() + 1000 > deadlineOf()) return res.refused;
    await sleep(1000);
  }
}
