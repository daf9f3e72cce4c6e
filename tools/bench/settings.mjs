// What a bench run (tools/bench/bench.mjs) measures and how, from its command line and BENCH_*:
//
//   BENCH_LEVELS=8,32,64   concurrency levels        BENCH_SECONDS=10   seconds per phase
//   BENCH_LEDGER=0         without the ledger (and LEDGER_HOLDS off): what the books cost, by difference
//   BENCH_WRITE_DOCS=0     do not update docs/performance.md
//   BENCH_METRICS_COST=0   skip the with/without-metrics CPU comparison (tools/bench/metrics-cost.mjs)
//   BENCH_CPU_PROFILE=1    V8 CPU profiles of every service in .run/bench/profiles/ (see tools/bench/profile-summary.mjs)
//   BENCH_CEILINGS=0       skip the pgbench and Kafka producer ceilings (=postgres: only pgbench's)
//   BENCH_CEILING_SHOPS=n  pgbench's clients share n shops (default: one shop per client; 1 is the
//                          bench's own single-shop queue, see tools/bench/order-path.sql)
//   BENCH_QUERY_LOG=1      every service's statements (text, no parameters) in .run/bench/queries/<service>.sql
//   BENCH_WARMUP_SECONDS=15 whole order lives at concurrency 32 before the first level (0: none)
//   BENCH_SOAK_SECONDS=300 the soak phase after the levels: orders' lives at 70 % of the best orders/s
//                          (BENCH_SOAK_RATE=n orders/s instead), memory and consumer lag every
//                          BENCH_SOAK_SAMPLE_SECONDS=30 s, and CPU per order's life at that fixed
//                          rate (what two runs of unequal speed compare on, given the same
//                          BENCH_SOAK_RATE); 0 skips it
//   --smoke                one level of 4 for 1 s, a 2-s soak, no ceilings, docs untouched (what the
//                          clean-up test runs)
//   --no-build             dist/ is compiled already
import { randomUUID } from 'node:crypto';
import { LEDGER_SERVICE, SERVICES } from '../stack/system.mjs';

/** --smoke: the smallest run that still goes through every step (the clean-up test runs it). */
export const SMOKE = process.argv.includes('--smoke');
export const LEVELS = (process.env.BENCH_LEVELS ?? (SMOKE ? '4' : '8,32,64'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 10));
export const CEILINGS = process.env.BENCH_CEILINGS !== '0' && !SMOKE;
/** BENCH_CEILINGS=postgres: the pgbench ceiling without Kafka's (which needs its tools jars from Maven). */
export const KAFKA_CEILING = process.env.BENCH_CEILINGS !== 'postgres';
export const CEILING_SHOPS = process.env.BENCH_CEILING_SHOPS ? Number(process.env.BENCH_CEILING_SHOPS) : undefined;
export const WRITE_DOCS = process.env.BENCH_WRITE_DOCS !== '0' && !SMOKE;
/** --no-build: the caller compiled dist/ already. */
export const BUILD = !process.argv.includes('--no-build');
export const SANDBOX_SECRET = 'bench-sandbox-secret';
/** BENCH_CPU_PROFILE=1: every service writes a V8 CPU profile to .run/bench/profiles/ when it stops. */
export const PROFILE = process.env.BENCH_CPU_PROFILE === '1';
/** BENCH_QUERY_LOG=1: the query counter also logs every statement's text (tools/bench/query-counter.cjs). */
export const QUERY_LOG = process.env.BENCH_QUERY_LOG === '1';
export const OPS_TOKEN = 'bench-ops-token-' + randomUUID();
/** BENCH_WARMUP_SECONDS: whole order lives before the first level (creates, then their callbacks). */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? (SMOKE ? 0 : 15));
export const WARMUP_CONCURRENCY = 32;
export const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? (SMOKE ? 2 : 300));
export const SOAK_SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? (SMOKE ? 1 : 30));
export const SOAK_RATE = process.env.BENCH_SOAK_RATE ? Number(process.env.BENCH_SOAK_RATE) : undefined;
/**
 * BENCH_IDLE_SECONDS: after the warm-up, the system's CPU with no load at all (timers, sweeps,
 * consumers' empty fetches, health and metrics): what every level's order's life carries as a
 * fixed cost per second, whatever its throughput. 0 skips it.
 */
export const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? (SMOKE ? 0 : 10));
/**
 * The ledger runs (issue 29) unless BENCH_LEDGER=0: it books every completed order, and the bench's
 * shop settles at once (delay 0), so an order's life includes its credit and, at the sweep's
 * default of every 5 s, nearly always its settlement.
 */
export const LEDGER = process.env.BENCH_LEDGER !== '0';
export const BENCHED = LEDGER ? [...SERVICES, LEDGER_SERVICE] : SERVICES;
