/**
 * How fast can a consumer check what it reads? Every consumed Kafka message goes through
 * JSON.parse, the envelope check and its payload schema, so the schema library is on the hot path.
 * This parses three realistic messages (a provider event, an order.create command, an
 * order.status_changed event) with the same schemas written in zod 4 and in valibot 1, and with
 * this repository's libs/contracts as it stands (compiled on the fly with @swc/core), and prints
 * operations per second (the best of several interleaved rounds: the machine is shared).
 *
 *   node libs/contracts/bench/parse.bench.mjs [--rounds=9] [--ms=400] [--baseline=<git revision>]
 *
 * --baseline adds the libs/contracts of that revision (e.g. the commit before a change) to the table.
 *
 * zod is a dependency; valibot is not (docs/decisions.md 70): to compare again, add it for the
 * run with `npm install --no-save valibot@1.5.0`. A library that is not installed is skipped.
 */
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(join(root, 'package.json'));
const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ROUNDS = arg('rounds', 9);
const MS = arg('ms', 400);
const BASELINE = process.argv.find((a) => a.startsWith('--baseline='))?.split('=')[1];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const ORDER_STATUSES = [
  'registered',
  'in_progress',
  'need_action',
  'completed',
  'partially_refunded',
  'refunded',
  'cancelled',
  'failed',
];

const id = (n) => `5b0c9a8e-3f1d-4c2a-9d7e-${String(n).padStart(12, '0')}`;
const envelopeOf = (type, payload) =>
  JSON.stringify({
    eventId: id(1),
    type,
    version: 1,
    occurredAt: '2026-05-13T10:00:00.000Z',
    correlationId: id(2),
    causationId: id(3),
    payload,
  });

const MESSAGES = {
  'provider.event': envelopeOf('provider.event', {
    providerCode: 'sandbox',
    providerEventId: 'evt_8f2a61c0',
    kind: 'payment',
    reference: id(10),
    paymentId: id(11),
    status: 'success',
    amount: '125000.50',
    currency: 'UZS',
    receivedAt: '2026-05-13T10:00:00.000Z',
  }),
  'order.create': envelopeOf('order.create', {
    orderId: id(20),
    shopId: id(21),
    merchantOrderId: 'shop-order-000731',
    cost: { amount: '125000.50', currency: 'UZS' },
    description: 'Two tickets, row 7',
    instrumentType: 'card',
    paymentSettings: { walletType: 'personal' },
    payer: { email: 'payer@example.com', phone: '+998901234567' },
    recipient: { merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' } },
    callbackUrl: 'https://merchant.example.com/callbacks',
  }),
  'order.status_changed': envelopeOf('order.status_changed', {
    orderId: id(30),
    shopId: id(31),
    merchantOrderId: 'shop-order-000731',
    sequence: 3,
    status: 'completed',
    previousStatus: 'in_progress',
    statusCode: '0-01-00',
    statusDescription: 'Success',
    cost: { amount: '125000.50', currency: 'UZS' },
  }),
};

function zodParsers(z) {
  const check = (r, type) => {
    if (!r.success) throw new Error(`zod: ${type} failed`);
    return r.data;
  };
  const opt = (s) => s.nullish();
  const str = (min, max) => {
    let s = z.string();
    if (min !== undefined) s = s.min(min);
    if (max !== undefined) s = s.max(max);
    return s;
  };
  const uuid = z.string().regex(UUID);
  const decimal = z.string().regex(DECIMAL);
  const cost = z.object({ amount: decimal, currency: str(1, 32), tokenStandard: opt(str(undefined, 16)) });
  const envelope = (payload) =>
    z.object({
      eventId: uuid,
      type: z.string().min(1),
      version: z.int(),
      occurredAt: z.string().refine((v) => !Number.isNaN(Date.parse(v))),
      correlationId: z.string(),
      causationId: z.string().nullable(),
      payload,
    });
  const schemas = {
    'provider.event': envelope(
      z.object({
        providerCode: str(1, 64),
        providerEventId: str(1, 128),
        kind: z.enum(['payment', 'payout', 'p2p']),
        reference: str(1, 128),
        paymentId: opt(str(undefined, 128)),
        status: z.enum(['success', 'failed', 'pending']),
        amount: decimal,
        currency: str(1, 32),
        tokenStandard: opt(str(undefined, 16)),
        reason: opt(str(undefined, 512)),
        receivedAt: z.string(),
      }),
    ),
    'order.create': envelope(
      z.object({
        orderId: uuid,
        shopId: uuid,
        merchantOrderId: str(1, 128),
        cost,
        description: opt(str(undefined, 1024)),
        instrumentType: opt(z.enum(['card', 'wallet', 'bank_transfer', 'mobile_top_up'])),
        paymentSettings: opt(z.object({ walletType: opt(z.enum(['personal', 'company'])) })),
        payer: opt(z.record(z.string(), z.unknown())),
        recipient: opt(
          z.object({
            merchantBalance: opt(z.object({ currency: str(1, 32), tokenStandard: opt(str(undefined, 16)) })),
          }),
        ),
        callbackUrl: opt(str(1, 2048)),
      }),
    ),
    'order.status_changed': envelope(
      z.object({
        orderId: uuid,
        shopId: uuid,
        merchantOrderId: z.string(),
        sequence: z.int(),
        status: z.enum(ORDER_STATUSES),
        previousStatus: z.enum(ORDER_STATUSES).nullable(),
        statusCode: opt(z.string()),
        statusDescription: opt(z.string()),
        cost,
        callbackUrl: opt(str(1, 2048)),
      }),
    ),
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => [
      type,
      {
        message: (raw) => check(schema.safeParse(JSON.parse(raw)), type),
        payload: (payload) => check(schema.shape.payload.safeParse(payload), type),
      },
    ]),
  );
}

function valibotParsers(v) {
  const check = (r, type) => {
    if (!r.success) throw new Error(`valibot: ${type} failed`);
    return r.output;
  };
  const opt = (s) => v.nullish(s);
  const str = (min, max) => {
    const actions = [];
    if (min !== undefined) actions.push(v.minLength(min));
    if (max !== undefined) actions.push(v.maxLength(max));
    return actions.length ? v.pipe(v.string(), ...actions) : v.string();
  };
  const uuid = v.pipe(v.string(), v.regex(UUID));
  const decimal = v.pipe(v.string(), v.regex(DECIMAL));
  const int = v.pipe(v.number(), v.integer());
  const cost = v.object({ amount: decimal, currency: str(1, 32), tokenStandard: opt(str(undefined, 16)) });
  const envelope = (payload) =>
    v.object({
      eventId: uuid,
      type: v.pipe(v.string(), v.minLength(1)),
      version: int,
      occurredAt: v.pipe(
        v.string(),
        v.check((s) => !Number.isNaN(Date.parse(s))),
      ),
      correlationId: v.string(),
      causationId: v.nullable(v.string()),
      payload,
    });
  const schemas = {
    'provider.event': envelope(
      v.object({
        providerCode: str(1, 64),
        providerEventId: str(1, 128),
        kind: v.picklist(['payment', 'payout', 'p2p']),
        reference: str(1, 128),
        paymentId: opt(str(undefined, 128)),
        status: v.picklist(['success', 'failed', 'pending']),
        amount: decimal,
        currency: str(1, 32),
        tokenStandard: opt(str(undefined, 16)),
        reason: opt(str(undefined, 512)),
        receivedAt: v.string(),
      }),
    ),
    'order.create': envelope(
      v.object({
        orderId: uuid,
        shopId: uuid,
        merchantOrderId: str(1, 128),
        cost,
        description: opt(str(undefined, 1024)),
        instrumentType: opt(v.picklist(['card', 'wallet', 'bank_transfer', 'mobile_top_up'])),
        paymentSettings: opt(v.object({ walletType: opt(v.picklist(['personal', 'company'])) })),
        payer: opt(v.record(v.string(), v.unknown())),
        recipient: opt(
          v.object({
            merchantBalance: opt(v.object({ currency: str(1, 32), tokenStandard: opt(str(undefined, 16)) })),
          }),
        ),
        callbackUrl: opt(str(1, 2048)),
      }),
    ),
    'order.status_changed': envelope(
      v.object({
        orderId: uuid,
        shopId: uuid,
        merchantOrderId: v.string(),
        sequence: int,
        status: v.picklist(ORDER_STATUSES),
        previousStatus: v.nullable(v.picklist(ORDER_STATUSES)),
        statusCode: opt(v.string()),
        statusDescription: opt(v.string()),
        cost,
        callbackUrl: opt(str(1, 2048)),
      }),
    ),
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => [
      type,
      {
        message: (raw) => check(v.safeParse(schema, JSON.parse(raw)), type),
        payload: (payload) => check(v.safeParse(schema.entries.payload, payload), type),
      },
    ]),
  );
}

/**
 * This repository's libs/contracts, exactly as a consumer calls it: parseEnvelope, then
 * parsePayload. With a git revision, the libs/contracts of that revision (the baseline to compare).
 */
function projectParsers(rev) {
  const { transformSync } = require('@swc/core');
  const dir = 'libs/contracts/src';
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  const files = rev ? git('ls-tree', '--name-only', `${rev}:${dir}`).split('\n') : readdirSync(join(root, dir));
  const out = join(root, 'node_modules/.cache/contracts-bench', rev ?? 'worktree');
  mkdirSync(out, { recursive: true });
  for (const file of files.filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    const source = rev ? git('show', `${rev}:${dir}/${file}`) : readFileSync(join(root, dir, file), 'utf8');
    const { code } = transformSync(source, {
      filename: file,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    writeFileSync(join(out, file.replace(/\.ts$/, '.js')), code);
  }
  const c = require(join(out, 'index.js'));
  const schemas = {
    'provider.event': c.providerEvent,
    'order.create': c.createOrderCommand,
    'order.status_changed': c.orderStatusChanged,
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => [
      type,
      {
        message: (raw) => {
          const e = c.parseEnvelope(raw);
          if (e.kind !== 'ok') throw new Error(`libs/contracts: ${type} envelope ${e.reason}`);
          return c.parsePayload(schema, e.envelope.payload, type);
        },
        payload: (payload) => c.parsePayload(schema, payload, type),
      },
    ]),
  );
}

async function load(name, make) {
  try {
    return [name, make(await import(name))];
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') {
      console.log(`${name}: not installed, skipped`);
      return null;
    }
    throw err;
  }
}

/** Counted against this process's CPU time, not the wall clock: the other engineers' jobs share the cores. */
function opsPerSecond(parse, input) {
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let n = 0;
  const start = cpuMs();
  let spent = 0;
  while (spent < MS) {
    for (let i = 0; i < 200; i++, n++) parse(input);
    spent = cpuMs() - start;
  }
  return (n * 1000) / spent;
}

const candidates = [
  await load('zod', (m) => zodParsers(m.z)),
  await load('valibot', (m) => valibotParsers(m)),
  ['libs/contracts', projectParsers()],
  ...(BASELINE ? [[`contracts@${BASELINE.slice(0, 7)}`, projectParsers(BASELINE)]] : []),
].filter(Boolean);

const PAYLOADS = Object.fromEntries(Object.entries(MESSAGES).map(([type, raw]) => [type, JSON.parse(raw).payload]));
const MODES = {
  message: ['JSON.parse + envelope + payload (what a consumer does)', MESSAGES],
  payload: ['payload schema alone, input already parsed (the library itself)', PAYLOADS],
};
for (const [, parsers] of candidates)
  for (const [type, p] of Object.entries(parsers)) for (const mode of Object.keys(MODES)) p[mode](MODES[mode][1][type]);

const results = new Map();
for (let round = 0; round < ROUNDS; round++)
  for (const [name, parsers] of candidates)
    for (const [type, p] of Object.entries(parsers))
      for (const [mode, [, inputs]] of Object.entries(MODES)) {
        const key = `${mode}\t${name}\t${type}`;
        results.set(key, [...(results.get(key) ?? []), opsPerSecond(p[mode], inputs[type])]);
      }

// The best round: on a shared machine the others are slowed by whatever else runs, not by the parser.
const best = (xs) => Math.max(...xs);
for (const [mode, [title]] of Object.entries(MODES)) {
  console.log(`${title}, ops per CPU second (best of ${ROUNDS} rounds of ${MS} ms)`);
  console.log(['library'.padEnd(20), ...Object.keys(MESSAGES).map((t) => t.padStart(22))].join(''));
  for (const [name] of candidates)
    console.log(
      [
        name.padEnd(20),
        ...Object.keys(MESSAGES).map((t) =>
          Math.round(best(results.get(`${mode}\t${name}\t${t}`)))
            .toLocaleString('en-US')
            .padStart(22),
        ),
      ].join(''),
    );
}
