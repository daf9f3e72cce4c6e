// The merchant's side of the bench: a server that takes the merchant callbacks and notes when
// each order's `completed` one arrived.
import http from 'node:http';
import { Latencies } from './load.mjs';

/** The merchant's server: notes when each order's `completed` callback arrived. */
export async function startMerchantReceiver() {
  const completedAt = new Map();
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = process.hrtime.bigint();
      received += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const id = body.objectId ?? body.orderId;
        if (body.status === 'completed' && id && !completedAt.has(id)) completedAt.set(id, at);
      } catch {
        /* counted, not parsed */
      }
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/callbacks`,
    completedAt,
    /** Waits (up to `timeoutMs`) until every order has had its `completed` callback; true when all did. */
    untilCompleted: async (/** @type {string[]} */ ids, /** @type {number} */ timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && ids.some((id) => !completedAt.has(id)))
        await new Promise((r) => setTimeout(r, 200));
      return ids.every((id) => completedAt.has(id));
    },
    /**
     * From each order's provider callback acknowledged (`acked`: id → hrtime) to its `completed`
     * merchant callback: p50 and p99 in ms, and how many of them arrived.
     */
    merchantLatency: (/** @type {Map<string, bigint>} */ acked) => {
      const lat = new Latencies();
      for (const [id, at] of acked) {
        const arrived = completedAt.get(id);
        if (arrived !== undefined) lat.add(Number(arrived - at) / 1000);
      }
      return { p50: lat.percentile(50), p99: lat.percentile(99), delivered: lat.values.length, expected: acked.size };
    },
    received: () => received,
    close: () => new Promise((r) => server.close(r)),
  };
}
