// The merchant of the fault suite: an HTTP endpoint that records every callback it gets, in arrival
// order, and how many it had in flight at once per shop. A scenario can make it fail (503), slow, or
// hold each answer a little so that calls pile up to the per-shop limit.
import http from 'node:http';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @typedef {{ eventId: string, objectType: string, objectId: string, shopId: string, sequence: number,
 *   status: string, previousStatus: string | null }} Delivery
 */

/** Starts the receiver on a free port of 127.0.0.1. */
export async function startReceiver() {
  /** @type {Delivery[]} */
  const deliveries = [];
  /** mode: ok, down (503 at once) or slow (2 s an answer); holdMs: what every answer waits in mode ok. */
  const state = { mode: 'ok', holdMs: 0 };
  /** Calls in flight per shop (from the body's shopId), now and at most, while the receiver held them. */
  const inFlight = new Map();
  /** @type {Map<string, number>} */
  const maxInFlight = new Map();
  /** @type {Map<string, number>} when each shop's maximum was first reached (ms since the epoch) */
  const maxAt = new Map();
  const server = http.createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (state.mode === 'down') return res.writeHead(503).end();
      /** @type {string | undefined} */
      let shop;
      try {
        const b = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        shop = String(b.shopId);
        const now = (inFlight.get(shop) ?? 0) + 1;
        inFlight.set(shop, now);
        if (now > (maxInFlight.get(shop) ?? 0)) {
          maxInFlight.set(shop, now);
          maxAt.set(shop, Date.now());
        }
        deliveries.push({
          eventId: b.eventId,
          objectType: b.objectType,
          objectId: b.objectId,
          shopId: b.shopId,
          sequence: b.sequence,
          status: b.status,
          previousStatus: b.previousStatus ?? null,
        });
      } catch {
        /* not ours to judge here; the reconciler sees it as missing */
      }
      if (state.mode === 'slow') await sleep(2000);
      else if (state.holdMs > 0) await sleep(state.holdMs);
      res.writeHead(200).end();
      if (shop !== undefined) inFlight.set(shop, (inFlight.get(shop) ?? 1) - 1);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/callbacks`,
    deliveries,
    state,
    maxInFlight,
    maxAt,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}
