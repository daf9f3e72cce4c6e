// The bench's phases before its levels: the warm-up, then the idle measurement.
import { pendingDeliveries } from './backlog.mjs';
import { cpuDelta } from './cpu.mjs';
import { runClosedLoop } from './load.mjs';
import { cpuLine, perUnit } from './report.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Whole order lives, so every path runs hot before the first level: the services' JIT and the
 * broker's (a JVM the bench may have started a minute ago compiles for minutes, and its CPU would
 * otherwise be billed to the first levels' orders). Then the merchant-callbacks backlog drains.
 * @param {{ seconds: number, concurrency: number, createOrder: (into: string[]) => () => any,
 *   callbackFor: (orderId: string) => any, dbUrl: string, log: (line: string) => void }} opts
 */
export async function warmUp({ seconds, concurrency, createOrder, callbackFor, dbUrl, log }) {
  log(`warm-up: ${seconds} s of creates, then their callbacks, at concurrency ${concurrency}`);
  /** @type {string[]} */
  const warm = [];
  await runClosedLoop({ concurrency, seconds, makeRequest: createOrder(warm) });
  let w = 0;
  await runClosedLoop({ concurrency, seconds, makeRequest: () => (w < warm.length ? callbackFor(warm[w++]) : null) });
  // Events still on their way to merchant-callbacks are not pending yet: a second for them.
  await sleep(1000);
  const until = Date.now() + 60_000;
  let pending = 0;
  while (Date.now() < until && (pending = (await pendingDeliveries(dbUrl)).pending ?? 0) > 0) await sleep(250);
  if (pending > 0) log(`warm-up: ${pending} merchant callbacks still pending after a minute; measuring anyway`);
}

/**
 * The system's CPU with no load at all for `seconds` (timers, sweeps, consumers' empty fetches,
 * health and metrics): CPU ms per second of each process, the fixed cost every level's order's
 * life carries whatever its throughput.
 * @param {{ seconds: number, cpuNow: () => Record<string, number>, log: (line: string) => void }} opts
 * @returns {Promise<Record<string, number>>}
 */
export async function measureIdle({ seconds, cpuNow, log }) {
  const before = cpuNow();
  const t0 = Date.now();
  await sleep(seconds * 1000);
  const idle = perUnit(cpuDelta(before, cpuNow()), (Date.now() - t0) / 1000);
  log(`idle: CPU ms per second with no load: ${cpuLine(idle)}`);
  return idle;
}
