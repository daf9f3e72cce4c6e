// `npm start`: installs what is missing, starts Kafka and PostgreSQL where none is configured,
// compiles, runs every service with its log in .run/logs/<service>.log, seeds a demo company and
// shop and prints its API key with a copy-paste example. Ctrl-C stops everything it started.
// `npm start -- --logs` then follows every service's log on the console.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  build,
  ensureContractTopics,
  ensureInfra,
  ensureInstalled,
  lastLines,
  log,
  logger,
  ROOT,
  startService,
} from './common.mjs';
import { stopChild } from '../infra/process.mjs';
import { localCardVaultEnv } from './card-vault-keys.mjs';
import { demoProviderOrders, demoProviders, demoProviderSteps } from './demo-providers.mjs';
import { demoFailoverOrder, demoRoutingSteps, seedDemoRoute } from './demo-routing.mjs';

const ports = {
  gateway: Number(process.env.GATEWAY_HTTP_PORT ?? 3000),
  /** The backoffice: /ops/v1 and the console, never on the merchant gateway. */
  backoffice: Number(process.env.BACKOFFICE_HTTP_PORT ?? 3090),
  ingest: Number(process.env.CALLBACKS_INGEST_HTTP_PORT ?? 3001),
  sandbox: Number(process.env.PROVIDER_SANDBOX_HTTP_PORT ?? 3002),
  orders: Number(process.env.ORDERS_HTTP_PORT ?? 3010),
  methods: Number(process.env.METHODS_HTTP_PORT ?? 3020),
  merchantCallbacks: Number(process.env.MERCHANT_CALLBACKS_HTTP_PORT ?? 3030),
  payouts: Number(process.env.PAYOUTS_HTTP_PORT ?? 3040),
  p2p: Number(process.env.P2P_HTTP_PORT ?? 3050),
  checkout: Number(process.env.CHECKOUT_HTTP_PORT ?? 3060),
  ledger: Number(process.env.LEDGER_HTTP_PORT ?? 3070),
};
const checkout = `http://127.0.0.1:${ports.checkout}`;
const runDir = path.join(ROOT, '.run');
const logsDir = path.join(runDir, 'logs');
mkdirSync(logsDir, { recursive: true });
const logFile = (name) => path.join(logsDir, `${name}.log`);
const followLogs = process.argv.includes('--logs');
/** Set once the summary is out: from then on `--logs` echoes every service line to the console. */
let following = false;

function localOpsToken() {
  if (process.env.OPS_TOKEN) return process.env.OPS_TOKEN;
  const file = path.join(runDir, 'ops-token');
  if (!existsSync(file)) writeFileSync(file, 'ops_' + randomBytes(24).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** Like the operator token: a secret of this machine, never the once-public `sandbox-local-secret`. */
function localSandboxSecret() {
  if (process.env.SANDBOX_CALLBACK_SECRET) return process.env.SANDBOX_CALLBACK_SECRET;
  const file = path.join(runDir, 'sandbox-callback-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

ensureInstalled();
build();
const infra = await ensureInfra();
await ensureContractTopics(infra.env.KAFKA_BROKERS, process.env.KAFKA_TOPIC_PREFIX ?? '');

const opsToken = localOpsToken();
const env = {
  ...infra.env,
  OPS_TOKEN: opsToken,
  SANDBOX_CALLBACK_SECRET: localSandboxSecret(),
  ...localCardVaultEnv(runDir),
  GATEWAY_HTTP_PORT: String(ports.gateway),
  BACKOFFICE_HTTP_PORT: String(ports.backoffice),
  CALLBACKS_INGEST_HTTP_PORT: String(ports.ingest),
  PROVIDER_SANDBOX_HTTP_PORT: String(ports.sandbox),
  ORDERS_HTTP_PORT: String(ports.orders),
  METHODS_HTTP_PORT: String(ports.methods),
  MERCHANT_CALLBACKS_HTTP_PORT: String(ports.merchantCallbacks),
  // Local development: callback URLs may be http://localhost (a receiver on this machine).
  CALLBACK_URL_ALLOW_INSECURE: process.env.CALLBACK_URL_ALLOW_INSECURE ?? 'true',
  PAYOUTS_HTTP_PORT: String(ports.payouts),
  P2P_HTTP_PORT: String(ports.p2p),
  CHECKOUT_HTTP_PORT: String(ports.checkout),
  LEDGER_HTTP_PORT: String(ports.ledger),
  // The sandbox rates feed (decision 305): local runs convert across currencies without an operator.
  LEDGER_SANDBOX_ENVIRONMENT: 'true',
  LEDGER_SANDBOX_RATES:
    process.env.LEDGER_SANDBOX_RATES ??
    JSON.stringify({
      'USD/USDT-TRC20': '0.998',
      'USD/EUR': '0.92',
      'EUR/USD': '1.08',
      'EUR/USDT-TRC20': '1.077',
      'UZS/USD': '0.0000787402', // 1 / 12700, as USD/UZS below
      'USD/UZS': '12700',
    }),
  // Where payers open hosted payment links (data.paymentLink).
  CHECKOUT_PUBLIC_URL: process.env.CHECKOUT_PUBLIC_URL ?? checkout,
  SANDBOX_CALLBACKS_URL: process.env.SANDBOX_CALLBACKS_URL ?? `http://127.0.0.1:${ports.ingest}/callbacks/sandbox`,
  // Where orders, payouts and P2P send attempts: the sandbox on its port (also when PROVIDER_SANDBOX_HTTP_PORT moved it).
  SANDBOX_PROVIDER_URL: process.env.SANDBOX_PROVIDER_URL ?? `http://127.0.0.1:${ports.sandbox}`,
  GATEWAY_INSTANCE_ID: process.env.GATEWAY_INSTANCE_ID ?? 'local',
};

const children = [];
let stopping = false;
async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping services…');
  // stopChild: a service that already died of a signal must not be waited for (it never exits again).
  await Promise.all(children.map((c) => stopChild(c)));
  if (infra.startedKafka || infra.startedPostgres) log('stopping the Kafka broker and database started by npm start…');
  await infra.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

const providers = demoProviders(`http://127.0.0.1:${ports.sandbox}`);
/**
 * Starts one service.
 * @param {string} name
 */
function launch(name) {
  const say = logger(name, 90);
  const child = /** @type {import('node:child_process').ChildProcess} */ (
    startService(
      name,
      { ...env, ...providers.envFor(name) },
      {
        logFile: logFile(name),
        echo: followLogs ? (line) => following && say(line) : undefined,
      },
    )
  );
  child.on('exit', (code, signal) => {
    if (!stopping) {
      const file = path.relative(ROOT, logFile(name));
      log(`${name} exited (${signal ?? code}); the end of ${file}:\n${lastLines(logFile(name))}`);
      log('stopping everything');
      void shutdown(1);
    }
  });
  children.push(child);
}
[
  'orders',
  'callbacks-ingest',
  'gateway',
  'backoffice',
  'provider-sandbox',
  'methods',
  'merchant-callbacks',
  'payouts',
  'p2p',
  'checkout',
  'ledger',
].forEach((name) => launch(name));

const gateway = `http://127.0.0.1:${ports.gateway}`;
const opsApi = `http://127.0.0.1:${ports.backoffice}`;
const health = [
  ['gateway', ports.gateway],
  ['backoffice', ports.backoffice],
  ['callbacks-ingest', ports.ingest],
  ['orders', ports.orders],
  ['methods', ports.methods],
  ['merchant-callbacks', ports.merchantCallbacks],
  ['payouts', ports.payouts],
  ['p2p', ports.p2p],
  ['checkout', ports.checkout],
  ['ledger', ports.ledger],
];
/**
 * What a service's /health/ready answers: ready, or why not (each failing component and its
 * detail), or that it does not answer at all.
 * @param {number} port
 */
async function readiness(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(3000) });
    if (res.status === 200) return { ready: true, why: '' };
    const body = await res.json().catch(() => ({}));
    const why = Object.entries(body.error ?? {})
      .map(([component, h]) => `${component}: ${/** @type {{ detail?: string }} */ (h).detail ?? 'down'}`)
      .join('; ');
    return { ready: false, why: why || `answered ${res.status}` };
  } catch (err) {
    return { ready: false, why: `does not answer (${err instanceof Error ? err.message : err})` };
  }
}

/**
 * Each service of `list` ready (its /health/ready 200), or after a minute the reason it is not, and its log's end.
 * @param {(string | number)[][]} list
 */
async function untilReady(list) {
  try {
    await Promise.all(
      list.map(async ([name, port]) => {
        const service = String(name).split(' ')[0];
        const deadline = Date.now() + 60_000;
        for (;;) {
          const r = await readiness(Number(port));
          if (r.ready) return;
          if (Date.now() > deadline)
            throw new Error(
              `${name} is not ready after 60 s: ${r.why}; the end of ${path.relative(ROOT, logFile(service))}:\n${lastLines(logFile(service))}`,
            );
          await new Promise((r) => setTimeout(r, 250));
        }
      }),
    );
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    await shutdown(1);
  }
}
await untilReady(health);

/** One demo company and shop, kept in .run/demo.json across runs while its key still works. */
async function seedDemo() {
  const file = path.join(runDir, 'demo.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8'));
    const probe = await fetch(`${gateway}/order/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${demo.apiKey}` },
    });
    if (probe.status === 404) return demo;
  }
  const ops = { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' };
  const company = await (
    await fetch(`${opsApi}/ops/v1/companies`, {
      method: 'POST',
      headers: ops,
      body: JSON.stringify({ name: 'Demo Company' }),
    })
  ).json();
  const shop = await (
    await fetch(`${opsApi}/ops/v1/companies/${company.id}/shops`, {
      method: 'POST',
      headers: ops,
      body: JSON.stringify({ name: 'Demo Shop' }),
    })
  ).json();
  if (!shop.apiKey) throw new Error(`seeding the demo shop failed: ${JSON.stringify(shop)}`);
  const demo = { companyId: company.id, shopId: shop.id, apiKey: shop.apiKey, callbackSecret: shop.callbackSecret };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

const demo = await seedDemo();

/** A named demo operator (role operator), kept in .run/demo-operator.json while its token works. */
async function seedDemoOperator() {
  const file = path.join(runDir, 'demo-operator.json');
  if (existsSync(file)) {
    const known = JSON.parse(readFileSync(file, 'utf8'));
    const me = await fetch(`${opsApi}/ops/v1/me`, { headers: { authorization: `Bearer ${known.token}` } });
    if (me.status === 200) return known;
  }
  const res = await fetch(`${opsApi}/ops/v1/operators`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Demo Operator ${randomBytes(3).toString('hex')}`, role: 'operator' }),
  });
  const created = await res.json();
  if (res.status !== 201) throw new Error(`seeding the demo operator failed: ${res.status} ${JSON.stringify(created)}`);
  const operator = { id: created.id, name: created.name, role: created.role, token: created.token };
  writeFileSync(file, JSON.stringify(operator, null, 2), { mode: 0o600 });
  return operator;
}

const demoOperator = await seedDemoOperator();

/**
 * The demo shop's payment and payout methods, created where their code is missing (also for a
 * demo shop seeded before the methods service existed).
 */
async function seedDemoMethods(shopId) {
  const ops = { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' };
  const wanted = {
    'payment-methods': [
      {
        code: 'cards',
        instrumentType: 'card',
        cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
        currencies: [{ currency: 'USD' }, { currency: 'UZS' }],
        provider: 'sandbox',
      },
      // Hosted pages offer it as "Pay in the SandboxPay app" (deeplink, QR; docs/checkout.md).
      {
        code: 'sandboxpay',
        instrumentType: 'wallet',
        dataEntryMode: 'instruction',
        currencies: [{ currency: 'UZS' }, { currency: 'USD' }],
        provider: 'sandbox',
      },
    ],
    'payout-methods': [
      {
        code: 'uzcard-payout',
        instrumentType: 'card',
        cardBrands: ['humo', 'uzcard'],
        currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '50000000.00' }],
        provider: 'sandbox',
      },
      {
        code: 'wallet-payout',
        instrumentType: 'wallet',
        walletTypes: ['personal', 'company'],
        currencies: [{ currency: 'UZS' }, { currency: 'USD' }],
        provider: 'sandbox',
      },
      {
        code: 'usdt-trc20',
        instrumentType: 'crypto',
        currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10', maxAmount: '100000' }],
        provider: 'sandbox',
      },
    ],
  };
  for (const [list, methods] of Object.entries(wanted)) {
    const url = `${opsApi}/ops/v1/shops/${shopId}/${list}`;
    const existing = await (await fetch(url, { headers: ops })).json();
    const codes = new Set((existing.methods ?? []).map((m) => m.code));
    for (const method of methods.filter((m) => !codes.has(m.code))) {
      const res = await fetch(url, { method: 'POST', headers: ops, body: JSON.stringify(method) });
      if (res.status !== 201)
        throw new Error(`seeding the demo ${list} ${method.code} failed: ${res.status} ${await res.text()}`);
    }
  }
}
await seedDemoMethods(demo.shopId);

/** Payouts without recipient details get a payout page (docs/checkout.md); on for the demo shop. */
async function enableDemoPayoutPage(shopId) {
  const url = `${opsApi}/ops/v1/shops/${shopId}/settings`;
  const ops = { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' };
  const current = await (await fetch(url, { headers: ops })).json();
  if (current.payoutViaPaymentPage === true) return;
  const res = await fetch(url, { method: 'PATCH', headers: ops, body: JSON.stringify({ payoutViaPaymentPage: true }) });
  if (res.status !== 200)
    throw new Error(`turning on the demo shop's payout page failed: ${res.status} ${await res.text()}`);
}
await enableDemoPayoutPage(demo.shopId);

/**
 * The demo shop's payments settle at once (settlement delay 0; the default is a day), so a demo
 * payment funds a demo payout: the ledger holds a payout's money before it accepts it
 * (decision 273). The ledger has no operators' API for the delay yet, so it is its row.
 */
async function settleDemoAtOnce(shopId) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: infra.env.DATABASE_URL });
  await client.connect();
  try {
    const schema = process.env.LEDGER_DB_SCHEMA ?? 'ledger';
    await client.query(
      `INSERT INTO "${schema}".shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)
       ON CONFLICT (shop_id) DO UPDATE SET settlement_delay_seconds = 0, updated_at = now()`,
      [shopId],
    );
  } finally {
    await client.end();
  }
}
await settleDemoAtOnce(demo.shopId);
// The demo shop's Click and Payme accounts, keys made for this run (decisions 341, 342).
await providers.setAccounts(opsApi, opsToken, demo.shopId);
const providerOrders = await demoProviderOrders(gateway, demo.apiKey);
await seedDemoRoute(opsApi, opsToken, demo.shopId);
const failoverOrder = await demoFailoverOrder(gateway, demo.apiKey);
const relLog = (name) => path.relative(ROOT, logFile(name));
/** The summary's service lines: name, URL, what else is there (one entry, one line). */
const serviceLines = [
  ['gateway', gateway, `OpenAPI: ${gateway}/docs`],
  ['backoffice', opsApi, `operators: /ops/v1, console ${opsApi}/ops/console; OpenAPI: ${opsApi}/docs`],
  ['callbacks-ingest', `http://127.0.0.1:${ports.ingest}`],
  ['provider-sandbox', `http://127.0.0.1:${ports.sandbox}`],
  ['checkout', checkout, 'hosted payment pages'],
  [
    'merchant-callbacks',
    `http://127.0.0.1:${ports.merchantCallbacks}`,
    `health; callback log: ${opsApi}/ops/v1/callbacks`,
  ],
  ['Kafka', infra.env.KAFKA_BROKERS],
  ['PostgreSQL', infra.env.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')],
];
const table = (rows) =>
  rows
    .map(([name, url, note]) => `   ${name.padEnd(19)} ${url.padEnd(24)}${note ? ` (${note})` : ''}`.trimEnd())
    .join('\n');
const logsHint = followLogs
  ? " Every service's log follows below (the files stay in .run/logs/)."
  : ` Logs: one file per service in .run/logs/ (LOG_LEVEL=${process.env.LOG_LEVEL ?? 'info'}), e.g. tail -f ${relLog('orders')}
   (every service's on this console: npm start -- --logs)`;

console.log(`
────────────────────────────────────────────────────────────────────────────
 Payments is running.
${table(serviceLines)}
   Health: every service is ready; a service that stops being ready is said here, with why
     (GET /health/ready and /health/live on each port; docs/operations.md, "Health").
   Metrics (Prometheus text; docs/operations.md): ${opsApi}/metrics (with Kafka lag and dead letters), ${gateway}/metrics,
     ${[ports.ingest, ports.sandbox, ports.orders, ports.methods].map((p) => `http://127.0.0.1:${p}/metrics`).join('  ')}
     ${[ports.merchantCallbacks, ports.payouts, ports.p2p].map((p) => `http://127.0.0.1:${p}/metrics`).join('  ')}

${logsHint}

 Demo shop ${demo.shopId}
   API key       ${demo.apiKey}

 Operators: the backoffice ${opsApi} (its own service and port, never the merchant gateway):
   console        ${opsApi}/ops/console — sign in with the demo operator's token
   demo operator  ${demoOperator.name} (${demoOperator.role}) token ${demoOperator.token}
   OPS_TOKEN      ${opsToken} (the first admin: creates operators, POST ${opsApi}/ops/v1/operators)

 1. Create an order (an amount ending in .99 is one the sandbox acquirer accepts and never
    answers, so you send its callback yourself; other amounts it pays and calls back by itself):
   curl -s ${gateway}/order -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"order":{"merchantOrderId":"demo-'$(date +%s)'","cost":{"amount":"100.99","currency":"USD"}}}'

 2. Have the sandbox provider send a signed success callback for it (put the order id in):
   curl -s http://127.0.0.1:${ports.sandbox}/simulate/callback -H 'Content-Type: application/json' \\
     -d '{"reference":"<order id>","status":"success","amount":"100.99","currency":"USD"}'

 3. See it completed:
   curl -s ${gateway}/order/<order id> -H 'Authorization: Bearer ${demo.apiKey}'

 4. Payout methods and the payee fields a payout needs (the answer depends on walletType):
   curl -s ${gateway}/payouts/payout-methods/${demo.shopId} -H 'Authorization: Bearer ${demo.apiKey}'
   curl -s ${gateway}/payouts/fields -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"payoutSettings":{"method":"wallet-payout","currency":"UZS","walletType":"company"}}'

 5. Pay someone out (sent to the sandbox, which pays and calls back; GET /payouts/<id> shows it
    completed), and move money between two people (POST /p2p, GET /p2p/<id>):
   curl -s ${gateway}/payouts -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"payout":{"merchantPayoutId":"demo-po-'$(date +%s)'","method":"wallet-payout","cost":{"amount":"25.00","currency":"USD"}},"instrumentType":"wallet","walletType":"personal","payee":{"walletId":"w-1001","firstName":"Jane","lastName":"Doe"}}'
   curl -s ${gateway}/p2p -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"p2p":{"merchantP2pId":"demo-p2p-'$(date +%s)'","cost":{"amount":"10.00","currency":"USD"}},"sender":{"cardNumber":"4111111111111111"},"recipient":{"cardNumber":"8600123456789012"}}'

 6. A hosted order: the answer's data.paymentLink is a page where the payer pays by card. Open it
    in a browser and pay with 9860 1234 5678 9015 (HUMO), any future expiry such as 12/30, or
    choose "Pay in the SandboxPay app" and approve on the page its QR code or link opens:
   curl -s ${gateway}/order -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"order":{"merchantOrderId":"demo-pay-'$(date +%s)'","cost":{"amount":"150000.00","currency":"UZS"}},"paymentPageDesign":{"format":"hosted","locale":"en"}}' \\
     | grep -o '"paymentLink":"[^"]*"'

 7. A payout via payment page: no recipient details, so the answer's data.payoutLink is a page where
    the recipient picks a payout method and enters their card (UZCARD 8600 1234 5678 9012) or
    wallet; the payout then goes to the sandbox, which pays it (GET /payouts/<id> shows it):
   curl -s ${gateway}/payouts -H 'Authorization: Bearer ${demo.apiKey}' \\
     -H 'Content-Type: application/json' \\
     -d '{"payout":{"merchantPayoutId":"demo-link-'$(date +%s)'","cost":{"amount":"250000.00","currency":"UZS"}},"paymentPageDesign":{"locale":"en"}}' \\
     | grep -o '"payoutLink":"[^"]*"'

${demoProviderSteps(providerOrders, gateway, demo.apiKey)}

${demoRoutingSteps(failoverOrder, gateway, demo.apiKey)}

 Sandbox scenarios by the amount's cents (.13 decline, .21 other amount, .31 slow, …):
 apps/provider-sandbox/README.md. Operator API: ${opsApi}/docs (Bearer <operator token>).

 Ctrl-C stops everything npm start started.
────────────────────────────────────────────────────────────────────────────
`);
following = followLogs;

/**
 * From now on, a service that stops being ready is said on the console at once, with why, and
 * again when it is back (npm start runs for hours; its /health/ready is what Kubernetes asks).
 */
const lastReady = new Map(health.map(([name]) => [name, true]));
setInterval(async () => {
  for (const [name, port] of health) {
    const r = await readiness(Number(port));
    if (stopping || r.ready === lastReady.get(name)) continue;
    lastReady.set(name, r.ready);
    log(
      r.ready ? `${name} is ready again` : `${name} is NOT READY: ${r.why} (GET http://127.0.0.1:${port}/health/ready)`,
    );
  }
}, 5000).unref();
