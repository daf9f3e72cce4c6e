// What collecting metrics costs: the system's CPU per order created with every service's metrics
// on (and scraped, as Prometheus would) and off (METRICS_ENABLED=false), in the same run, at the
// same concurrency, alternating on/off/on/off so a drift of the machine (other load, a warmer
// database) does not fall on one side. Only this run's processes count: the services and the
// PostgreSQL backends of the run's own database (the database server may be shared).
import { cpuDelta, cpuSnapshot } from './cpu.mjs';
import { runClosedLoop } from './load.mjs';

/** Prometheus' default is 15 s; 5 s is a busy scraper, so the cost measured is an upper bound. */
const SCRAPE_MS = 5000;

/**
 * `restart(extraEnv)` restarts every service with extra environment and answers [[name, pid], …]
 * and the /metrics URLs; `createOrder` makes one create-order request for the load generator.
 */
export async function measureMetricsCost({ concurrency, seconds, restart, createOrder, pgDatabase, log }) {
  const sides = { on: { ms: 0, orders: 0 }, off: { ms: 0, orders: 0 } };
  for (const side of ['on', 'off', 'on', 'off']) {
    const { processes, metricsUrls } = await restart(side === 'on' ? {} : { METRICS_ENABLED: 'false' });
    await runClosedLoop({ concurrency, seconds: 2, makeRequest: createOrder }); // warm-up after the restart
    const scraper = side === 'on' ? scrapeEvery(metricsUrls, SCRAPE_MS) : undefined;
    const before = cpuSnapshot(processes, { pgDatabase });
    const run = await runClosedLoop({ concurrency, seconds, makeRequest: createOrder });
    const delta = cpuDelta(before, cpuSnapshot(processes, { pgDatabase }));
    await scraper?.stop();
    const ms = Object.entries(delta)
      .filter(([k]) => k !== 'load generator')
      .reduce((a, [, v]) => a + v, 0);
    sides[side].ms += ms;
    sides[side].orders += run.ok;
    log(`metrics ${side}: ${run.ok} orders, ${(ms / Math.max(run.ok, 1)).toFixed(2)} ms of CPU per order`);
  }
  const on = sides.on.ms / Math.max(sides.on.orders, 1);
  const off = sides.off.ms / Math.max(sides.off.orders, 1);
  return { on, off, costPercent: (100 * (on - off)) / off, scrapeSeconds: SCRAPE_MS / 1000 };
}

function scrapeEvery(urls, ms) {
  /** @type {Promise<unknown>} */
  let scraped = Promise.resolve();
  const timer = setInterval(() => {
    scraped = Promise.all(urls.map((u) => fetch(u).then((r) => r.text()))).catch(() => undefined);
  }, ms);
  return {
    stop: async () => {
      clearInterval(timer);
      await scraped;
    },
  };
}

export function metricsCostLine(cost, concurrency) {
  if (!cost) return 'Metrics collection cost: not measured.';
  if (cost.error) return `Metrics collection cost: not measured (${cost.error}).`;
  return `Metrics collection cost (concurrency ${concurrency}; services and this run's PostgreSQL backends; on = every /metrics scraped every ${cost.scrapeSeconds} s, off = METRICS_ENABLED=false): ${cost.on.toFixed(2)} ms of CPU per order with metrics, ${cost.off.toFixed(2)} ms without: ${cost.costPercent >= 0 ? '+' : ''}${cost.costPercent.toFixed(1)}% (target: under 3%).`;
}
