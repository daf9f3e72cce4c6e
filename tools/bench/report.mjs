// The bench's report: the figures of a run as the Markdown tables of docs/performance.md, its
// one-line summaries, and issue 13's targets against them. Pure formatting: nothing here measures.
import os from 'node:os';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { ROOT } from '../stack/common.mjs';
import { queriesTotal } from './queries.mjs';
import { roundTripLine } from './round-trip.mjs';
import { metricsCostLine } from './metrics-cost.mjs';

/** Issue 13's targets, printed against this run's figures at the end. */
const TARGETS = {
  lifeCpuMs: 4,
  createP99AtC8Ms: 100,
  merchantP99Ms: 500,
  backlogSeconds: 1,
  rssMb: 200,
  ordersPerSecond: 450,
  callbacksPerSecond: 1500,
  pgCeilingShare: 0.6,
};

/** CPU milliseconds per unit of work (an order created, a callback taken) of each process. */
export function perUnit(delta, count) {
  return Object.fromEntries(Object.entries(delta).map(([k, ms]) => [k, count > 0 ? ms / count : NaN]));
}
export const cpuTotal = (cpu) =>
  Object.entries(cpu)
    .filter(([k]) => k !== 'load generator')
    .reduce((a, [, v]) => a + v, 0);
export const cpuLine = (cpu) =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${fmt(v, 2)}`)
    .join(', ') + ` (system ${fmt(cpuTotal(cpu), 2)})`;

export const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
/** Write system calls per unit: the system's (every process but the load generator) and the load generator's. */
const writesTotal = (w) => cpuTotal(w);
export const writesLine = (w) =>
  Object.entries(w)
    .map(([k, v]) => `${k} ${fmt(v, 1)}`)
    .join(', ') + ` (system ${fmt(writesTotal(w), 1)})`;
export const queriesLine = (per) =>
  Object.entries(per)
    .filter(([, v]) => v.statements > 0)
    .map(([k, v]) => `${k} ${fmt(v.statements, 1)}/${fmt(v.transactions, 1)}`)
    .join(', ') + ` (all ${fmt(queriesTotal(per).statements, 1)}/${fmt(queriesTotal(per).transactions, 1)})`;
export const soakLine = (soak) => {
  const head = `soak: ${fmt(soak.created / soak.seconds, 1)} orders/s for ${fmt(soak.seconds)} s (asked ${fmt(soak.ratePerSecond, 1)}), ${soak.created} created, ${soak.callbacks} callbacks, ${soak.failed} failed, ${soak.skipped} skipped${soak.skipped ? ' (the system fell behind)' : ''}${soak.failures.length ? `: ${soak.failures.join(' | ')}` : ''}; create p99 ${fmt(soak.createP99, 1)} ms; merchant callbacks at the end ${soak.backlog.error ? `not measured (${soak.backlog.error})` : `${soak.backlog.pending} pending = ${fmt(soak.backlog.seconds, 1)} s of work`}`;
  if (!soak.judged) return `${head}; growth not judged (needs two samples after the first ${60} s)`;
  return `${head}; after the first minute (from ${soak.from} s, medians of the earlier and the later half of the samples) resident memory ${soak.memoryGrew.length ? `grew: ${soak.memoryGrew.join(', ')}` : 'did not grow'}, consumer lag ${soak.lagGrew ? 'grew' : 'did not grow'} (${fmt(soak.lag.from)} → ${fmt(soak.lag.to)})`;
};

/** From the provider callback acknowledged to the `completed` merchant callback: `receiver.merchantLatency`'s p50 and p99. */
export const merchantLatencyText = (m) =>
  `callback 200 → merchant callback p50 ${fmt(m.p50, 1)} ms, p99 ${fmt(m.p99, 1)} ms`;

/** CPU per order's life in the soak: at one fixed arrival rate, so two runs with the same BENCH_SOAK_RATE compare at equal throughput. */
export const soakLifeLine = (soak) => {
  const life = soak.life;
  if (!life) return "soak: per order's life not measured";
  return `soak: per order's life at ${fmt(life.rate, 1)} orders/s over ${fmt(life.seconds, 1)} s${life.complete ? '' : ' (incomplete: not every order got its callbacks)'}: CPU ms ${cpuLine(life.cpu)}; statements/transactions ${queriesLine(life.queries)}${life.idle ? `; of it, the idle cost: CPU ms ${cpuLine(life.idle)}` : ''}${soak.merchant ? `; ${merchantLatencyText(soak.merchant)} (${soak.merchant.delivered}/${soak.merchant.expected})` : ''}`;
};

export function machine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
}

export function renderReport({ rows, memory, pg, kafka, best, metricsCost, soak, roundTrip, seconds, ledger = true }) {
  const lines = [];
  lines.push(
    `Machine: ${machine()}. Run: ${new Date().toISOString()}, ${seconds} s per phase; ${ledger ? 'with the ledger (LEDGER_HOLDS on, settlement delay 0)' : 'without the ledger (BENCH_LEDGER=0)'}.`,
  );
  lines.push('');
  lines.push(
    '| concurrency | orders/s | create p50 ms | create p99 ms | callbacks/s | callback p99 ms | callback → merchant p50 ms | p99 ms | merchant callbacks | backlog after orders / callbacks |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const backlogCell = (b) => (b.error ? '–' : `${b.pending} (${fmt(b.seconds, 1)} s)`);
  for (const r of rows) {
    lines.push(
      `| ${r.concurrency} | ${fmt(r.orders.perSecond)} | ${fmt(r.orders.p50, 1)} | ${fmt(r.orders.p99, 1)} | ${fmt(r.callbacks.perSecond)} | ${fmt(r.callbacks.p99, 1)} | ${fmt(r.merchant.p50, 1)} | ${fmt(r.merchant.p99, 1)} | ${r.merchant.delivered}/${r.merchant.expected} | ${backlogCell(r.backlog.orders)} / ${backlogCell(r.backlog.callbacks)} |`,
    );
  }
  lines.push('');
  lines.push(
    "The backlog is the merchant callbacks pending when a phase's load ended, and in seconds of work at the rate merchant callbacks left during that phase.",
  );
  lines.push('');
  const names = Object.keys(best.cpuOrders);
  lines.push(
    `CPU per unit of work at concurrency ${best.concurrency} (milliseconds of CPU, from /proc; ${os.cpus().length} cores give ${os.cpus().length * 1000} ms per second): the work of one order created (everything the system does meanwhile: relay, provider dispatch, merchant callbacks) and of one provider callback taken (ingest, fold, publish, merchant callback).`,
  );
  lines.push('');
  lines.push(`| per | ${names.join(' | ')} | system (without the load generator) | CPU-bound limit |`);
  lines.push(`|---|${names.map(() => '---:').join('|')}|---:|---:|`);
  for (const [label, cpu] of [
    ['order created', best.cpuOrders],
    ['callback taken', best.cpuCallbacks],
    ["order's life", best.lifeCpu],
  ]) {
    lines.push(
      `| ${label} | ${names.map((n) => fmt(cpu[n], 2)).join(' | ')} | ${fmt(cpuTotal(cpu), 2)} | ${fmt((os.cpus().length * 1000) / cpuTotal(cpu))}/s |`,
    );
  }
  lines.push('');
  lines.push(
    'Peak resident memory (VmHWM): ' +
      Object.entries(memory)
        .map(([n, mb]) => `${n} ${fmt(mb)} MB`)
        .join(', ') +
      '.',
  );
  lines.push('');
  const pgLine = pg.error
    ? `PostgreSQL ceiling: not measured (${pg.error})`
    : `PostgreSQL ceiling (pgbench, the same statements and transactions per order's life, concurrency ${best.concurrency}, ${pg.shops === best.concurrency ? 'a shop per client' : `${pg.shops} shop${pg.shops === 1 ? '' : 's'}`}): ${fmt(pg.ordersPerSecond)} orders/s; ours ${fmt(best.orders.perSecond)} = ${fmt((100 * best.orders.perSecond) / pg.ordersPerSecond)}% of it.`;
  const kafkaLine = kafka.error
    ? `Kafka ceiling: not measured (${kafka.error})`
    : `Kafka ceiling (ProducerPerformance, ${kafka.recordSize}-byte records, acks=all, idempotent): ${fmt(kafka.recordsPerSecond)} records/s; our ${fmt(best.orders.perSecond)} orders/s produce about ${fmt(best.orders.perSecond * kafka.messagesPerOrder)} messages/s (${kafka.messagesPerOrder} per order) = ${fmt((100 * best.orders.perSecond * kafka.messagesPerOrder) / kafka.recordsPerSecond)}% of it.`;
  lines.push(pgLine);
  lines.push('');
  lines.push(kafkaLine);
  if (metricsCost) lines.push('', metricsCostLine(metricsCost, best.concurrency));
  lines.push('', ...lifeSection(rows, roundTrip));
  if (soak) lines.push('', ...soakSection(soak));
  lines.push('', ...targetsSection({ rows, memory, pg, best, soak }));
  const markdown = lines.join('\n') + '\n';
  return { markdown, text: markdown };
}

/** Per order's life at each level: CPU (the load generator apart) and statements/transactions per service. */
function lifeSection(rows, roundTrip) {
  const services = [...new Set(rows.flatMap((r) => Object.keys(r.lifeQueries)))].filter((n) =>
    rows.some((r) => r.lifeQueries[n]?.statements > 0),
  );
  const out = [
    "One order's life: from the first create of a level until every order of it had its `completed` merchant callback — the order created, its provider callback, its dispatch and merchant callbacks — per order created. CPU of every process (PostgreSQL: the backends of the run's database; the Kafka broker: all of it, shared with whatever else uses it) with the load generator apart; statements / transactions (explicit ones and single statements outside one) per service, from the query counter preloaded into every service (tools/bench/query-counter.cjs).",
    '',
    `| concurrency | CPU ms (system) | load generator ms | ${services.map((n) => `${n} stmts / tx`).join(' | ')} | all stmts / tx |`,
    `|---:|---:|---:|${services.map(() => '---:').join('|')}|---:|`,
  ];
  for (const r of rows) {
    const t = queriesTotal(r.lifeQueries);
    out.push(
      `| ${r.concurrency}${r.lifeComplete ? '' : ' (incomplete)'} | ${fmt(cpuTotal(r.lifeCpu), 2)} | ${fmt(r.lifeCpu['load generator'], 2)} | ${services
        .map((n) =>
          r.lifeQueries[n] ? `${fmt(r.lifeQueries[n].statements, 1)} / ${fmt(r.lifeQueries[n].transactions, 1)}` : '–',
        )
        .join(' | ')} | ${fmt(t.statements, 1)} / ${fmt(t.transactions, 1)} |`,
    );
  }
  out.push('', ...messagesSection(rows, roundTrip));
  return out;
}

/**
 * Write system calls per order's life, per process, and an estimate of what the messages between
 * the processes cost: each statement at one node-postgres ↔ PostgreSQL round trip, every other
 * write of a service or the broker (a produce, a fetch or its answer, an HTTP request or answer,
 * a log line to its pipe) at half a Node ↔ Node round trip — both measured here with no work
 * around them (tools/bench/round-trip.mjs).
 */
function messagesSection(rows, roundTrip) {
  const names = Object.keys(rows[0]?.lifeWrites ?? {});
  if (names.length === 0) return [];
  const nodeHalfUs = roundTrip?.node ? (roundTrip.node.clientUs + roundTrip.node.serverUs) / 2 : NaN;
  const statementUs = roundTrip?.postgres ? roundTrip.postgres.clientUs + roundTrip.postgres.serverUs : NaN;
  const messagingNames = names.filter((n) => n !== 'postgres' && n !== 'load generator');
  const out = [
    "Write system calls per order's life (`syscw` of /proc/<pid>/io, all threads: write and writev, which Node and the broker send with, not send/sendmsg, which PostgreSQL answers with — so PostgreSQL's column is its WAL and log writes; a service's writes include its log lines; '–' where /proc could not be read):",
    '',
    `| concurrency | ${names.join(' | ')} | system (without the load generator) | messages, estimated CPU ms |`,
    `|---:|${names.map(() => '---:').join('|')}|---:|---:|`,
  ];
  for (const r of rows) {
    const statements = queriesTotal(r.lifeQueries).statements;
    const others = Math.max(0, messagingNames.reduce((a, n) => a + r.lifeWrites[n], 0) - statements);
    const estimateMs = (statements * statementUs + others * nodeHalfUs) / 1000;
    out.push(
      `| ${r.concurrency} | ${names.map((n) => fmt(r.lifeWrites[n], 1)).join(' | ')} | ${fmt(writesTotal(r.lifeWrites), 1)} | ${fmt(estimateMs, 2)} |`,
    );
  }
  out.push('');
  out.push(
    roundTrip?.node
      ? `What one message costs on this machine, measured in the same run with the services stopped and the machine otherwise idle: ${roundTripLine(roundTrip)}. "Messages, estimated" prices each statement of an order's life at one statement round trip (${fmt(statementUs, 1)} µs, both sides) and every other write call of the services and the broker at half a Node round trip (${fmt(nodeHalfUs, 1)} µs: a write and its reading). An estimate, not a floor: a write may carry many messages, and on busy cores a round trip costs less than on idle ones, which must wake up for it.`
      : `What one message costs: not measured (${roundTrip?.error ?? 'no figure'}).`,
  );
  return out;
}

function soakSection(soak) {
  const names = Object.keys(soak.samples[0]?.rss ?? {});
  const out = [soakLine(soak) + '.', '', soakLifeLine(soak) + '.', ''];
  if (soak.samples.length === 0) return out;
  out.push(`| s | ${names.map((n) => `${n} MB`).join(' | ')} | consumer lag |`);
  out.push(`|---:|${names.map(() => '---:').join('|')}|---:|`);
  for (const s of soak.samples) out.push(`| ${s.at} | ${names.map((n) => fmt(s.rss[n])).join(' | ')} | ${s.lag} |`);
  return out;
}

/** Issue 13's targets against this run. */
function targetsSection({ rows, memory, pg, best, soak }) {
  const top = rows.reduce((a, b) => (b.concurrency > a.concurrency ? b : a));
  const c8 = rows.find((r) => r.concurrency === 8);
  const yes = (ok) => (ok === undefined ? '–' : ok ? 'yes' : '**no**');
  const backlogs = [
    ...rows.flatMap((r) => [
      [`c=${r.concurrency} orders`, r.backlog.orders],
      [`c=${r.concurrency} callbacks`, r.backlog.callbacks],
    ]),
    ...(soak?.backlog ? [['soak', soak.backlog]] : []),
  ].filter(([, b]) => !b.error);
  const worst = backlogs.reduce((a, b) => (b[1].seconds > (a?.[1].seconds ?? -1) ? b : a), undefined);
  const peak = Math.max(...Object.values(memory).filter(Number.isFinite));
  const life = cpuTotal(top.lifeCpu);
  const t = [
    [
      `CPU per order's life ≤ ${TARGETS.lifeCpuMs} ms (c=${top.concurrency})`,
      `${fmt(life, 2)} ms (load generator ${fmt(top.lifeCpu['load generator'], 2)} ms apart)`,
      yes(Number.isFinite(life) ? life <= TARGETS.lifeCpuMs : undefined),
    ],
    [
      `≥ ${TARGETS.ordersPerSecond} orders/s, ≥ ${TARGETS.callbacksPerSecond} callbacks/s`,
      `${fmt(best.orders.perSecond)} orders/s (c=${best.concurrency}), ${fmt(Math.max(...rows.map((r) => r.callbacks.perSecond)))} callbacks/s`,
      yes(
        best.orders.perSecond >= TARGETS.ordersPerSecond &&
          Math.max(...rows.map((r) => r.callbacks.perSecond)) >= TARGETS.callbacksPerSecond,
      ),
    ],
    [
      `p99 create-order ≤ ${TARGETS.createP99AtC8Ms} ms at concurrency 8`,
      c8 ? `${fmt(c8.orders.p99, 1)} ms` : 'not run (BENCH_LEVELS has no 8)',
      yes(c8 ? c8.orders.p99 <= TARGETS.createP99AtC8Ms : undefined),
    ],
    [
      `callback → merchant p99 ≤ ${TARGETS.merchantP99Ms} ms (c=${top.concurrency})`,
      `${fmt(top.merchant.p99, 1)} ms`,
      yes(Number.isFinite(top.merchant.p99) ? top.merchant.p99 <= TARGETS.merchantP99Ms : undefined),
    ],
    [
      `merchant callback backlog < ${TARGETS.backlogSeconds} s of work at the end of each phase`,
      worst ? `worst ${worst[0]}: ${worst[1].pending} pending = ${fmt(worst[1].seconds, 1)} s` : 'not measured',
      yes(worst ? backlogs.every(([, b]) => b.pending === 0 || b.seconds < TARGETS.backlogSeconds) : undefined),
    ],
    [
      'soak: resident memory does not grow after the first minute',
      !soak
        ? 'no soak (BENCH_SOAK_SECONDS=0)'
        : !soak.judged
          ? 'not judged (too short)'
          : soak.memoryGrew.join(', ') || 'flat',
      yes(soak?.judged ? soak.memoryGrew.length === 0 : undefined),
    ],
    [
      'soak: consumer lag does not grow after the first minute',
      !soak
        ? 'no soak'
        : !soak.judged
          ? 'not judged (too short)'
          : `${fmt(soak.lag.from)} → ${fmt(soak.lag.to)} (medians)`,
      yes(soak?.judged ? !soak.lagGrew : undefined),
    ],
    [
      `every Node service < ${TARGETS.rssMb} MB resident`,
      `peak ${fmt(peak)} MB`,
      yes(Number.isFinite(peak) ? peak < TARGETS.rssMb : undefined),
    ],
    [
      `≥ ${100 * TARGETS.pgCeilingShare} % of the PostgreSQL same-work ceiling`,
      pg.error ? `not measured (${pg.error})` : `${fmt((100 * best.orders.perSecond) / pg.ordersPerSecond)} %`,
      yes(pg.error ? undefined : best.orders.perSecond / pg.ordersPerSecond >= TARGETS.pgCeilingShare),
    ],
    [
      "statements / transactions per order's life (figure only)",
      `${fmt(queriesTotal(top.lifeQueries).statements, 1)} / ${fmt(queriesTotal(top.lifeQueries).transactions, 1)} (c=${top.concurrency})`,
      '–',
    ],
  ];
  return [
    'Targets (issue 13) against this run:',
    '',
    '| target | figure | met? |',
    '|---|---|---|',
    ...t.map((r) => `| ${r.join(' | ')} |`),
  ];
}

export function updatePerformanceDoc(markdown, log) {
  const file = path.join(ROOT, 'docs', 'performance.md');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  let doc;
  try {
    doc = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) return;
  writeFileSync(file, doc.slice(0, a + begin.length) + '\n' + markdown + doc.slice(b));
  log('docs/performance.md updated with these figures');
}
