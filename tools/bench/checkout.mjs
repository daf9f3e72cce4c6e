// `npm run bench:checkout`: the hosted payment pages under load (issue 20). Starts orders, methods,
// the gateway and checkout as separate processes on a database and topic prefix of its own,
// creates hosted orders, then has CHECKOUT_PAYERS concurrent payers (50) load their order pages
// over and over for BENCH_SECONDS (5) and prints p50/p99 latency, and the weight of each page
// (HTML+CSS+JS: one answer, nothing else is loaded), then the same with a second checkout that has
// no view cache (CHECKOUT_VIEW_MAX_AGE_MS=0) as the run's baseline. Figures only: nothing here
// asserts a target.
// Cleans up what it started, as `npm run bench` does.
//
//   CHECKOUT_PAYERS=50   concurrent payers      BENCH_SECONDS=5   seconds of load
//   BENCH_CPU_PROFILE=1  V8 CPU profiles in .run/bench/profiles/ (tools/bench/profile-summary.mjs)
//   --no-build           dist/ is compiled already
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  build,
  ensureContractTopics,
  ensureInfra,
  ensureInstalled,
  logger,
  ROOT,
  startService,
  waitForHttp,
} from '../stack/common.mjs';
import { createDatabase } from '../infra/postgres.mjs';
import { startRun, stopChild } from '../infra/process.mjs';
import { removeScratch, scratchNames, sweepLeftovers } from '../infra/scratch.mjs';
import { runClosedLoop } from './load.mjs';
import { freePort, SERVICES, systemEnv } from '../stack/system.mjs';

const log = logger('bench:checkout', 1);
const PAYERS = Number(process.env.CHECKOUT_PAYERS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BUILD = !process.argv.includes('--no-build');
/** BENCH_CPU_PROFILE=1: each service writes a V8 CPU profile to .run/bench/profiles/ when it stops. */
const PROFILE = process.env.BENCH_CPU_PROFILE === '1';
const OPS_TOKEN = 'bench-ops-token-' + randomUUID();
/** What the pages need; the provider, callbacks and payouts play no part in loading a page. */
const NEEDED = ['orders', 'methods', 'gateway', 'backoffice', 'checkout'];
const run = startRun({ name: 'bench:checkout', log });

async function json(url, init) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function main() {
  ensureInstalled();
  if (BUILD) build();
  const infra = await ensureInfra();
  run.defer('stop the broker and database the bench started', async () => {
    await infra.stop();
    for (const p of infra.processes) run.disown(p.pid);
  });
  for (const p of infra.processes) run.own(p.pid, p);
  const swept = await sweepLeftovers({ brokers: infra.env.KAFKA_BROKERS, databaseUrl: infra.env.DATABASE_URL });
  if (swept) log(swept);
  const { prefix, database: dbName } = scratchNames('bench');
  run.defer(`remove database ${dbName} and topics and groups ${prefix}*`, () =>
    removeScratch({ brokers: infra.env.KAFKA_BROKERS, databaseUrl: infra.env.DATABASE_URL, prefix, database: dbName }),
  );
  const dbUrl = await createDatabase(infra.env.DATABASE_URL, dbName);
  await ensureContractTopics(infra.env.KAFKA_BROKERS, prefix);
  const ports = Object.fromEntries(await Promise.all(SERVICES.map(async ([name]) => [name, await freePort()])));
  ports.methods = await freePort(); // not among the services the other tools start
  const env = {
    ...systemEnv({
      infraEnv: infra.env,
      dbUrl,
      prefix,
      ports,
      opsToken: OPS_TOKEN,
      sandboxSecret: 'bench-sandbox-secret',
      instanceId: 'bench',
    }),
    LOG_LEVEL: 'warn',
    METHODS_HTTP_PORT: String(ports.methods),
    // The payers all come from this machine's one address: the per-client limit would stop them.
    CHECKOUT_RATE_PER_CLIENT_PER_SECOND: '1000000',
    CHECKOUT_RATE_PER_CLIENT_BURST: '1000000',
    CHECKOUT_RATE_PER_LINK_PER_SECOND: '1000000',
    CHECKOUT_RATE_PER_LINK_BURST: '1000000',
  };
  const logDir = path.join(ROOT, '.run', 'bench');
  mkdirSync(logDir, { recursive: true });
  const children = [];
  run.defer('stop the services', () => Promise.all(children.map((c) => stopChild(c))));
  for (const name of NEEDED) {
    const child = startService(name, env, {
      logFile: path.join(logDir, `${name}.log`),
      nodeArgs: PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${path.join(logDir, 'profiles')}`, `--cpu-prof-name=${name}.cpuprofile`]
        : [],
    });
    if (!child) throw new Error(`${name} is not built (dist/apps/${name})`);
    run.own(child.pid);
    child.once('exit', () => run.disown(child.pid));
    children.push(child);
  }
  await Promise.all(NEEDED.map((name) => waitForHttp(`http://127.0.0.1:${ports[name]}/health`)));
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  const opsApi = `http://127.0.0.1:${ports.backoffice}`;
  const ops = { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' };
  const company = await json(`${opsApi}/ops/v1/companies`, { method: 'POST', headers: ops, body: '{"name":"Bench"}' });
  const shop = await json(`${opsApi}/ops/v1/companies/${company.id}/shops`, {
    method: 'POST',
    headers: ops,
    body: JSON.stringify({ name: 'Bench Shop' }),
  });
  const links = [];
  for (let i = 0; i < PAYERS; i++) {
    const order = await json(`${gateway}/order`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        order: { merchantOrderId: `bench-co-${i}`, cost: { amount: '150000.00', currency: 'UZS' } },
        paymentPageDesign: { format: 'hosted' },
      }),
    });
    links.push(order.data.paymentLink);
  }
  // Page weights: each page is one answer with its CSS and script inline.
  const weights = [];
  for (const lang of ['uz', 'ru', 'en']) {
    const html = await (await fetch(`${links[0]}?lang=${lang}`)).text();
    weights.push(`order page (${lang}) ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB`);
  }
  const missing = await fetch(`http://127.0.0.1:${ports.checkout}/pay/o${'A'.repeat(64)}`);
  weights.push(`not-found page ${((await missing.arrayBuffer()).byteLength / 1024).toFixed(1)} KB`);
  log(`pages (HTML+CSS+JS, no other request): ${weights.join(', ')}; budget 60 KB each`);
  // Warm-up, then the measured run: every payer reloads its own order page.
  await runClosedLoop({ concurrency: PAYERS, seconds: 1, makeRequest: (i) => ({ url: links[i % PAYERS] }) });
  const r = await runClosedLoop({
    concurrency: PAYERS,
    seconds: SECONDS,
    makeRequest: (i) => ({ url: links[i % PAYERS] }),
  });
  const report = (what, x) =>
    log(
      `${what}, ${PAYERS} concurrent payers, ${SECONDS} s: ${x.ok} pages (${x.perSecond.toFixed(0)}/s), ` +
        `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; other answers ${x.other}, errors ${x.errors}` +
        (x.otherSamples.length ? ` (${x.otherSamples.join(' | ')})` : ''),
    );
  report('order page', r);
  // The baseline of the same run: a second checkout that asks orders on every load (no view cache,
  // docs/decisions.md 223), the same links on its port, measured right after.
  const basePort = await freePort();
  const base = startService(
    'checkout',
    {
      ...env,
      CHECKOUT_HTTP_PORT: String(basePort),
      CHECKOUT_INSTANCE_ID: 'bench-nocache',
      CHECKOUT_VIEW_MAX_AGE_MS: '0',
    },
    { logFile: path.join(logDir, 'checkout-nocache.log') },
  );
  if (!base) throw new Error('checkout is not built (dist/apps/checkout)');
  run.own(base.pid);
  base.once('exit', () => run.disown(base.pid));
  children.push(base);
  await waitForHttp(`http://127.0.0.1:${basePort}/health`);
  const baseLinks = links.map((l) => l.replace(`:${ports.checkout}/`, `:${basePort}/`));
  await runClosedLoop({ concurrency: PAYERS, seconds: 1, makeRequest: (i) => ({ url: baseLinks[i % PAYERS] }) });
  const b = await runClosedLoop({
    concurrency: PAYERS,
    seconds: SECONDS,
    makeRequest: (i) => ({ url: baseLinks[i % PAYERS] }),
  });
  report('baseline: the same pages without the view cache', b);
  return r.errors + r.other + b.errors + b.other > 0 ? 1 : 0;
}

void run.main(main);
