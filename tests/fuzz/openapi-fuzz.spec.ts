import { Client } from 'pg';
import { sign } from '@payments/providers/sandbox';
import { checkAnswer, http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TEST_SANDBOX_SECRET, TestStack } from '../support/stack';
import {
  isValidShaped,
  operationsOf,
  PathValue,
  planRequests,
  PlannedRequest,
  toWire,
  WireRequest,
} from './openapi-fuzzer';

/**
 * The OpenAPI fuzzer against the real stack. `npm run fuzz -- --requests N --seed S` runs it longer
 * (FUZZ_REQUESTS, FUZZ_SEED); inside `npm test` it makes about 2,000 requests from a fixed seed.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 18);
const CONCURRENCY = 4;

interface Answer {
  status: number;
  contentType: string;
  text: string;
  body: any;
  headers: Headers;
}

/** What a run saw: each finding names the request (method, path, mutation) and the rule it broke. */
interface Findings {
  list: string[];
  add(req: WireRequest, planned: PlannedRequest | undefined, what: string): void;
}

function findings(): Findings {
  const list: string[] = [];
  return {
    list,
    add(req, planned, what) {
      const mutation = planned ? JSON.stringify(planned.mutation).slice(0, 120) : '';
      list.push(`${req.method} ${req.url.replace(/^http:\/\/[^/]+/, '')} ${mutation}: ${what}`.slice(0, 600));
    },
  };
}

async function send(req: WireRequest): Promise<Answer | { unsendable: string }> {
  let res: Response;
  try {
    res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
  } catch (e) {
    // A header value fetch itself refuses (not a ByteString) never reaches the service.
    if (e instanceof TypeError && !(e as any).cause) return { unsendable: e.message };
    throw e;
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body, headers: res.headers };
}

/** The rules every answer keeps, whatever was sent. */
function checkRules(req: WireRequest, planned: PlannedRequest | undefined, a: Answer, f: Findings): void {
  if (a.status >= 500) f.add(req, planned, `answered ${a.status}: ${a.text.slice(0, 200)}`);
  try {
    checkAnswer(req.method, req.url, a.status, a.contentType, a.body);
  } catch (e) {
    f.add(req, planned, (e as Error).message);
  }
  if (a.status < 400) return;
  if (!a.contentType.startsWith('application/problem+json')) f.add(req, planned, `${a.status} is ${a.contentType}`);
  const p = a.body ?? {};
  if (
    typeof p.type !== 'string' ||
    typeof p.title !== 'string' ||
    p.status !== a.status ||
    typeof p.detail !== 'string'
  )
    f.add(req, planned, `${a.status} is not a problem document: ${a.text.slice(0, 200)}`);
  if (a.status === 400 && String(p.type).endsWith('/validation-error')) {
    const named = Array.isArray(p.errors) && p.errors.length > 0 && p.errors.every((e: any) => e?.path?.length > 0);
    if (!named) f.add(req, planned, `400 names no field: ${a.text.slice(0, 200)}`);
  }
}

describe('the OpenAPI fuzzer against the real stack', () => {
  let stack: TestStack;
  let doc: any;
  let ingestDoc: any;
  let backofficeDoc: any;
  let shop: TestShop;
  /** A shop only operator routes touch, so revoking its keys cannot lock the merchant requests out. */
  let opsShop: TestShop;
  let db: Client;

  beforeAll(async () => {
    // The ledger too: GET /balance is in the merchant's document, and only the ledger answers it.
    stack = await TestStack.start({ ledger: true });
    doc = (await http('GET', `${stack.gateway!.url}/docs/openapi.json`)).body;
    ingestDoc = (await http('GET', `${stack.ingest!.url}/docs/openapi.json`)).body;
    backofficeDoc = (await http('GET', `${stack.backoffice!.url}/docs/openapi.json`)).body;
    shop = await aShop(stack.gateway!.url, 'Fuzz Shop');
    opsShop = await aShop(stack.gateway!.url, 'Fuzz Ops Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const COUNTED: Record<string, string> = {
    'POST /order': 'orders.orders',
    'POST /payouts': 'payouts.payouts',
    'POST /p2p': 'p2p.transactions',
    'POST /ops/v1/companies': 'gateway.companies',
    'POST /ops/v1/companies/{companyId}/shops': 'gateway.shops',
    'POST /callbacks/{providerCode}': 'callbacks_ingest.provider_callbacks',
  };
  /**
   * Rows per table. Provider callbacks are counted by the event ids the fuzzer sent: the sandbox
   * provider calls back for the payments it makes, and those rows are none of the fuzzer's.
   */
  const PROVIDER_CALLBACKS = 'callbacks_ingest.provider_callbacks';
  const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  const sentEventIds = new Set<string>();
  const rows = async (): Promise<Record<string, number>> =>
    Object.fromEntries(
      await Promise.all(
        Object.values(COUNTED).map(async (t) => {
          const { rows: r } =
            t === PROVIDER_CALLBACKS
              ? await db.query(`SELECT count(*) AS n FROM ${t} WHERE provider_event_id = ANY($1)`, [
                  // Text PostgreSQL cannot hold was refused (400) and cannot be looked up either.
                  [...sentEventIds].filter((id) => !UNSTORABLE.test(id)),
                ])
              : await db.query(`SELECT count(*) AS n FROM ${t}`);
          return [t, Number(r[0].n)];
        }),
      ),
    );

  it(
    `when ${REQUESTS} requests drawn from the document (seed ${SEED}) are sent, then no answer is a 5xx or undocumented, every 4xx is a problem naming its field, a refused request stores nothing and Idempotency-Key replays hold`,
    async () => {
      const ops = [
        ...operationsOf(doc, 'gateway'),
        ...operationsOf(backofficeDoc, 'backoffice'),
        ...operationsOf(ingestDoc, 'callbacks-ingest'),
      ];
      const plan = planRequests(ops, REQUESTS, SEED);
      const f = findings();
      const known: Record<string, string[]> = {
        orderId: [],
        payoutId: [],
        id: [],
        p2pId: [],
        companyId: [shop.companyId, opsShop.companyId],
        methodId: [],
        keyId: [],
        deliveryId: [],
      };
      const created: Record<string, Set<string>> = Object.fromEntries(
        Object.values(COUNTED).map((t) => [t, new Set()]),
      );
      const before = await rows();
      const statuses = new Map<number, number>();
      let unsendable = 0;
      let retried = 0;
      let sent = 0;
      let unique = 0;

      const fillPath = (op: PlannedRequest['op']) => (name: string, value: PathValue) => {
        if ('literal' in value) return value.literal;
        if (name === 'shopId') return op.access === 'merchant' ? shop.shopId : opsShop.shopId;
        if (name === 'providerCode') return 'sandbox';
        const pool = known[name] ?? [];
        return pool.length > 0 ? pool[value.known % pool.length] : '00000000-0000-4000-8000-000000000000';
      };
      /** Merchant ids are unique per shop: a fresh one per request, so valid-shaped creations go through. */
      const freshIds = (body: unknown): unknown => {
        if (Array.isArray(body)) return body.map(freshIds);
        if (!body || typeof body !== 'object') return body;
        return Object.fromEntries(
          Object.entries(body).map(([k, v]) => [
            k,
            /^(merchant\w*Id|eventId)$/.test(k) && typeof v === 'string'
              ? `${v.slice(0, 40)}-${(unique += 1)}`
              : freshIds(v),
          ]),
        );
      };
      const remember = (planned: PlannedRequest, a: Answer) => {
        if (a.status >= 300 || !a.body || typeof a.body !== 'object') return;
        const key = `${planned.op.method} ${planned.op.path}`;
        // callbacks-ingest answers no id: a stored callback is one that was not a duplicate.
        if (key === 'POST /callbacks/{providerCode}' && a.body.duplicate === false)
          created[COUNTED[key]].add(`callback-${(unique += 1)}`);
        const id = a.body.id;
        if (typeof id === 'string') {
          if (COUNTED[key]) created[COUNTED[key]].add(id);
          if (key === 'POST /order') known.orderId.push(id);
          if (key === 'POST /payouts') known.payoutId.push(id);
          if (key === 'POST /p2p') known.id.push(id);
          if (key === 'POST /p2p') known.p2pId.push(id);
          if (key === 'POST /ops/v1/companies') known.companyId.push(id);
          if (key.endsWith('-methods')) known.methodId.push(id);
          if (key === 'POST /ops/v1/shops/{shopId}/api-keys') known.keyId.push(id);
        }
      };

      async function run(planned: PlannedRequest): Promise<void> {
        const credentials =
          planned.op.access === 'ops' ? TEST_OPS_TOKEN : planned.op.access === 'merchant' ? shop.apiKey : undefined;
        const withIds = { ...planned, body: planned.body === undefined ? undefined : (freshIds(planned.body) as any) };
        const base =
          { gateway: stack.gateway!.url, backoffice: stack.backoffice!.url }[planned.op.service] ?? stack.ingest!.url;
        const req = toWire(withIds, base, credentials, fillPath(planned.op));
        if (planned.op.access === 'provider') {
          try {
            const eventId = JSON.parse(req.body ?? 'null')?.eventId;
            if (typeof eventId === 'string') sentEventIds.add(eventId);
          } catch {
            /* not JSON: nothing can be stored under it */
          }
        }
        // A provider signs the raw body as sent; the authorization mutation sends a bad signature instead.
        if (planned.op.access === 'provider') {
          const auth = req.headers.authorization;
          delete req.headers.authorization;
          if (planned.mutation.kind !== 'authorization')
            req.headers['x-signature'] = sign(TEST_SANDBOX_SECRET, req.body ?? '', Math.floor(Date.now() / 1000));
          else if (auth) req.headers['x-signature'] = auth;
        }
        if (planned.idempotencyCheck) req.headers['idempotency-key'] = `fuzz-${SEED}-${(unique += 1)}`;
        let a = await send(req);
        sent += 1;
        // A 503 is a timeout of the request to a domain service; on a loaded machine one can be slow.
        // Sent once more it must not be a 5xx again (a request that breaks a service still is).
        if (!('unsendable' in a) && a.status === 503) {
          retried += 1;
          a = await send(req);
          sent += 1;
        }
        if ('unsendable' in a) {
          unsendable += 1;
          return;
        }
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        checkRules(req, planned, a, f);
        remember(planned, a);
        if (!planned.idempotencyCheck || a.status >= 300 || req.body === undefined) return;
        // The same key and body replay the first answer; the same key with another body is 422.
        const again = await send(req);
        const other = await send({ ...req, body: req.body.replace(/}$/, ',"__fuzzOther":1}') });
        sent += 2;
        if ('unsendable' in again || 'unsendable' in other) return;
        if (again.status !== a.status || again.text !== a.text || again.headers.get('idempotent-replayed') !== 'true')
          f.add(req, planned, `a replay answered ${again.status} ${again.text.slice(0, 120)}, not the first answer`);
        // The operators' API validates a body before it reads the key (its Idempotency-Key belongs to
        // the ledger's adjustment, decision 308): an unknown member is a 400 naming it there, and
        // nothing is posted; the merchant API compares the key first and answers 422.
        const refusedFirst =
          planned.op.path.startsWith('/ops/') && other.status === 400 && other.text.includes('__fuzzOther');
        if (other.status !== 422 && !refusedFirst)
          f.add(req, planned, `the same key with another body answered ${other.status}, not 422`);
        checkRules(req, planned, other, f);
      }

      const started = Date.now();
      const queue = [...plan];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) await run(next);
        }),
      );

      // A refused request stores nothing: every row added is one a 2xx answer named.
      const after = await rows();
      for (const [table, n] of Object.entries(after)) {
        const added = n - before[table];
        if (added !== created[table].size)
          f.list.push(
            `${table}: ${added} rows were added, but ${created[table].size} requests were answered as created`,
          );
      }

      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const byStatus = [...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ');
      const validShaped = plan.filter(isValidShaped).length;
      console.log(
        `OpenAPI fuzzer: seed ${SEED}, ${sent} requests (${validShaped} planned valid-shaped, ${unsendable} refused by fetch itself, ${retried} sent again after a 503) ` +
          `over ${ops.length} operations in ${seconds} s; answers ${byStatus}; ${f.list.length} findings` +
          (f.list.length > 0 ? `\n${[...new Set(f.list)].slice(0, 40).join('\n')}` : ''),
      );
      expect([...new Set(f.list)]).toEqual([]);
      // The run reached the services: not everything was refused.
      expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    },
    Math.max(600_000, REQUESTS * 300),
  );

  // What the fuzzer found, kept as plain cases so they stay fixed whatever a seed draws.
  it.each([
    ['a body nested 3,000 levels deep', 'POST', '/order', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`, 'a.a.a'],
    ['an array nested 3,000 levels deep', 'POST', '/order', `${'['.repeat(3000)}${']'.repeat(3000)}`, '[0][0]'],
    [
      'a lone surrogate in a string',
      'POST',
      '/order',
      '{"order":{"merchantOrderId":"\\ud800"}}',
      'order.merchantOrderId',
    ],
    ['a NUL in a string', 'POST', '/order', '{"order":{"description":"a\\u0000b"}}', 'order.description'],
    [
      'a member with an empty name',
      'POST',
      '/order/cancel',
      '{"orderId":"0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21","":1}',
      '[""]',
    ],
    ['bad percent-encoding in the path', 'GET', '/order/%E0%A4%A', undefined, 'url'],
    ['a path id of 300 characters', 'GET', `/order/${'x'.repeat(300)}`, undefined, 'url'],
  ])('when a merchant sends %s, then the answer is a 400 naming the field', async (_, method, path, rawBody, field) => {
    const res = await http(method, `${stack.gateway!.url}${path}`, { token: shop.apiKey, rawBody });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.errors.map((e: { path: string }) => e.path).join(' ')).toContain(field);
  });

  it('when an operator sends a payment method whose currencies hold an array, then the answer is a 400 naming currencies (it timed out as a 503)', async () => {
    const res = await http('POST', `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${opsShop.shopId}/payment-methods`, {
      token: TEST_OPS_TOKEN,
      body: { code: 'fuzz-card', instrumentType: 'card', cardBrands: ['visa'], currencies: [[]], provider: 'sandbox' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'currencies', message: 'each currency must be an object' }]);
  });

  it('when an operator sets lowerPercent "150", then the answer is a 400 naming amountDeviation.lowerPercent and nothing changes', async () => {
    const url = `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${opsShop.shopId}/settings`;
    const before = await http('GET', url, { token: TEST_OPS_TOKEN });
    const res = await http('PATCH', url, {
      token: TEST_OPS_TOKEN,
      body: { amountDeviation: { lowerPercent: '150', upperPercent: '5' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'amountDeviation.lowerPercent', message: expect.stringContaining('from 0 to 100') },
    ]);
    expect((await http('GET', url, { token: TEST_OPS_TOKEN })).body).toEqual(before.body);
  });
});
