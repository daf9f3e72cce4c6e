// One object of the fault suite's load, as a merchant and its provider make it: created through the
// gateway (retried under its key until answered), its provider's success callback sent (`copies`
// times at once in d), and every REFUND_EVERY-th paid order refunded in part. What each step was
// answered goes into the journal and the tally.
import { createRequest, providerCallback, untilAnswered } from './client.mjs';
import { refundOnce } from './refunds.mjs';

/**
 * What the load had answered: 2xx by kind, refused for balance (1-06-02, 1-06-03: expected answers,
 * not losses), never answered before the deadline; and the requests to the gateway in flight (i: how
 * many the fault caught).
 * @typedef {{ acked: Record<import('./reconcile.mjs').Kind, number>, refused: number, unanswered: number,
 *   inFlight: number, orders: number }} Tally
 */

/** @returns {Tally} */
export const newTally = () => ({
  acked: { order: 0, payout: 0, p2p: 0 },
  refused: 0,
  unanswered: 0,
  inFlight: 0,
  orders: 0,
});

/**
 * @param {{ agent: import('node:http').Agent, gateway: () => string, ingest: () => string,
 *   auth: Record<string, string>, deadlineOf: () => number, answers: Map<string, number>,
 *   journal: import('./reconcile.mjs').Journal, tally: Tally, copies: number, sandboxSecret: string,
 *   refundEvery: number, refundAmount: string, noteOk: () => void }} ctx
 * @param {import('./reconcile.mjs').Kind} kind
 * @param {string} merchantId
 */
export async function oneObject(ctx, kind, merchantId) {
  const { agent, gateway, ingest, auth, deadlineOf, answers, journal, tally } = ctx;
  const { path: route, body } = createRequest(kind, merchantId);
  tally.inFlight += 1;
  const res = await untilAnswered(
    agent,
    () => gateway() + route,
    { method: 'POST', headers: { ...auth, 'idempotency-key': merchantId }, body },
    deadlineOf,
    answers,
  ).finally(() => (tally.inFlight -= 1));
  if (!res) {
    tally.unanswered += 1;
    return;
  }
  ctx.noteOk();
  if (res.refused) {
    journal.refused.set(merchantId, res.refused);
    tally.refused += 1;
    return;
  }
  const id = JSON.parse(res.body).id;
  journal[kind].set(merchantId, id);
  tally.acked[kind] += 1;
  const callback = providerCallback(kind, id, ctx.sandboxSecret);
  const sent = Array.from({ length: ctx.copies }, () =>
    untilAnswered(
      agent,
      ingest,
      { method: 'POST', headers: callback.headers, body: callback.body },
      deadlineOf,
      answers,
    ),
  );
  const answered = await Promise.all(sent.sort(() => Math.random() - 0.5));
  if (!answered.some(Boolean)) return;
  journal.callbacks.set(id, callback.eventId);
  ctx.noteOk();
  if (kind !== 'order' || ctx.refundEvery <= 0 || tally.orders++ % ctx.refundEvery !== 0) return;
  const r = await refundOnce({
    agent,
    gateway,
    auth,
    orderId: id,
    merchantId,
    amount: ctx.refundAmount,
    deadlineOf,
    answers,
    refusals: (code) => {
      journal.refused.set(`refund-${merchantId}`, code);
      tally.refused += 1;
    },
  });
  if (r === 'refunded') journal.refunds.set(id, [ctx.refundAmount]);
  else if (r === null) tally.unanswered += 1;
}
