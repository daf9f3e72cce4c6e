// The soak phase of `npm run bench`: orders' lives (create an order, then its provider callback) at
// a steady rate for minutes, sampling every Node service's resident memory and the consumer lag of
// the services' groups, then judging whether either grew after the first minute.
import http from 'node:http';
import { Latencies, request } from './load.mjs';

/** Judged from this second on: the first minute is warm-up (JIT, pools, caches filling). */
export const SOAK_SETTLED_S = 60;
/** Memory grew when the later samples' median is this much above the earlier ones'. */
const MEMORY_GROWTH = 0.1;
/** Lag grew when the later samples' median is this much above the earlier ones', and above LAG_FLOOR. */
const LAG_GROWTH = 0.5;
const LAG_FLOOR = 100;

/**
 * @param {{
 *   ratePerSecond: number, seconds: number, sampleSeconds: number, maxInFlight?: number,
 *   createOrder: () => { url: string, method: string, headers: Record<string, string>, body: unknown },
 *   callbackFor: (orderId: string) => { url: string, method: string, headers: Record<string, string>, body: string },
 *   sample: () => Promise<{ rss: Record<string, number>, lag: number }>,
 *   log: (line: string) => void,
 *   stillRunning: () => void,
 *   onLife?: (orderId: string, ackedAt: bigint) => void,
 * }} o
 */
export async function runSoak(o) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.maxInFlight ?? 256 });
  const maxInFlight = o.maxInFlight ?? 256;
  const creates = new Latencies();
  const counts = { created: 0, callbacks: 0, failed: 0, skipped: 0 };
  const failures = [];
  let inFlight = 0;
  const lives = [];
  const life = async () => {
    inFlight += 1;
    try {
      const spec = o.createOrder();
      const t0 = process.hrtime.bigint();
      const res = await request(agent, spec.url, spec);
      if (res.status !== 201) throw new Error(`create ${res.status} ${res.body.slice(0, 200)}`);
      creates.add(Number(process.hrtime.bigint() - t0) / 1000);
      counts.created += 1;
      const orderId = JSON.parse(res.body).id;
      const cb = o.callbackFor(orderId);
      const r2 = await request(agent, cb.url, cb);
      const ackedAt = process.hrtime.bigint();
      if (r2.status < 200 || r2.status >= 300) throw new Error(`callback ${r2.status} ${r2.body.slice(0, 200)}`);
      counts.callbacks += 1;
      // A whole life: its order created and its provider callback acknowledged.
      o.onLife?.(orderId, ackedAt);
    } catch (err) {
      counts.failed += 1;
      if (failures.length < 3) failures.push(String(/** @type {Error} */ (err)?.message ?? err).slice(0, 160));
    } finally {
      inFlight -= 1;
    }
  };

  /** @type {{ at: number, rss: Record<string, number>, lag: number, created: number }[]} */
  const samples = [];
  const started = Date.now();
  const takeSample = async () => {
    const at = Math.round((Date.now() - started) / 1000);
    const s = await o.sample();
    samples.push({ at, ...s, created: counts.created });
    o.log(
      `soak ${at} s: ${counts.created} orders, ${counts.callbacks} callbacks, ${counts.failed} failed, ${counts.skipped} skipped; resident ${Object.entries(
        s.rss,
      )
        .map(([n, mb]) => `${n} ${mb.toFixed(0)}`)
        .join(', ')} MB; consumer lag ${s.lag}`,
    );
  };
  let issued = 0;
  let nextSample = started + o.sampleSeconds * 1000;
  const end = started + o.seconds * 1000;
  while (Date.now() < end) {
    o.stillRunning();
    const due = Math.floor(((Date.now() - started) / 1000) * o.ratePerSecond);
    while (issued < due) {
      issued += 1;
      // Open loop: the rate does not slow down when answers do; beyond maxInFlight the life is
      // counted as skipped (the system did not keep up), not queued without bound.
      if (inFlight >= maxInFlight) counts.skipped += 1;
      else lives.push(life());
    }
    if (Date.now() >= nextSample) {
      await takeSample();
      nextSample += o.sampleSeconds * 1000;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  // The last sample is taken at the end, whatever the interval: the verdict compares it.
  if ((samples.at(-1)?.at ?? 0) < Math.round((Date.now() - started) / 1000)) await takeSample();
  await Promise.all(lives);
  agent.destroy();
  const elapsed = (Date.now() - started) / 1000;
  return {
    ratePerSecond: o.ratePerSecond,
    seconds: elapsed,
    ...counts,
    failures,
    createP99: creates.percentile(99),
    samples,
    ...judge(samples),
  };
}

const median = (xs) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/**
 * Whether memory or lag grew after the first minute: the median of the later half of the samples
 * taken from then on against the median of the earlier half (medians, not two single samples:
 * garbage collection and lag come in saw-teeth of a few tens of seconds).
 */
export function judge(samples) {
  const settled = samples.filter((s) => s.at >= SOAK_SETTLED_S);
  if (settled.length < 2) return { judged: false };
  const half = Math.floor(settled.length / 2);
  const early = settled.slice(0, half);
  const late = settled.slice(settled.length - half);
  /** @type {string[]} */
  const memoryGrew = [];
  for (const name of Object.keys(settled[0].rss)) {
    const was = median(early.map((s) => s.rss[name]));
    const is = median(late.map((s) => s.rss[name]));
    if (is > was * (1 + MEMORY_GROWTH)) memoryGrew.push(`${name} ${was.toFixed(0)} → ${is.toFixed(0)} MB`);
  }
  const lag = { from: median(early.map((s) => s.lag)), to: median(late.map((s) => s.lag)) };
  const lagGrew = lag.to > LAG_FLOOR && lag.to > lag.from * (1 + LAG_GROWTH);
  return { judged: true, from: settled[0].at, memoryGrew, lagGrew, lag };
}
