import { Client } from 'pg';
import { sign } from '@payments/providers/sandbox';
import { http, HttpResult } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_SANDBOX_SECRET, TestStack } from '../support/stack';

/** Words that would show an internal leaked: SQL, ORM, broker, exception names, stack frames. */
const LEAKS =
  /relation "|SELECT |INSERT |api_keys|provider_callbacks|QueryFailedError|TypeError|TypeORM|typeorm|KafkaJS|kafkajs|Exception|\n\s+at |node_modules|\.ts:\d+/;

function expectProblem(res: HttpResult, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String) });
  expect(res.text).not.toMatch(LEAKS);
}

/** Collects what the services log while `fn` runs: the operator's side of a 500. */
async function capturingLogs<T>(fn: () => Promise<T>): Promise<{ result: T; logs: string }> {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
      chunks.push(String(chunk));
      return true;
    }) as never),
  );
  try {
    const result = await fn();
    return { result, logs: chunks.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

describe('every error of every HTTP app is an RFC 9457 problem that leaks nothing', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  const apps = () => ({
    gateway: stack.gateway!.url,
    'callbacks-ingest': stack.ingest!.url,
    'provider-sandbox': stack.sandbox!.url,
  });
  type AppName = keyof ReturnType<typeof apps>;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'callbacks-ingest', 'provider-sandbox'] });
    shop = await aShop(stack.gateway!.url);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const APPS: AppName[] = ['gateway', 'callbacks-ingest', 'provider-sandbox'];

  it.each(APPS)('when %s is asked for a route it does not have, then it is a 404 problem', async (app) => {
    const res = await http('GET', `${apps()[app]}/no/such/route?card=4111111111111111`);
    expectProblem(res, 404, '/problems/not-found');
    expect(res.text).not.toContain('4111');
  });

  it.each([
    ['gateway', 'DELETE', '/order', 'POST'],
    ['gateway', 'PUT', '/api/v1/order/cancel', 'POST'],
    ['gateway', 'POST', '/status-codes', 'GET'],
    ['callbacks-ingest', 'GET', '/callbacks/sandbox', 'POST'],
    ['provider-sandbox', 'DELETE', '/payments', 'POST'],
  ] as [AppName, string, string, string][])(
    'when %s gets %s %s, then it is a 405 problem whose Allow has %s',
    async (app, method, path, allowed) => {
      const res = await http(method, `${apps()[app]}${path}`, { token: shop.apiKey });
      expectProblem(res, 405, '/problems/method-not-allowed');
      expect(res.headers.get('allow')?.split(', ')).toContain(allowed);
    },
  );

  const POSTS: Record<AppName, string> = {
    gateway: '/order',
    'callbacks-ingest': '/callbacks/sandbox',
    'provider-sandbox': '/payments',
  };
  const LIMITS: Record<AppName, number> = {
    gateway: 64 * 1024,
    'callbacks-ingest': 256 * 1024,
    'provider-sandbox': 64 * 1024,
  };

  it.each(APPS)('when %s gets a body that is not JSON, then it is a 400 malformed-body problem', async (app) => {
    const res = await http('POST', `${apps()[app]}${POSTS[app]}`, {
      token: shop.apiKey,
      rawBody: '{"order": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, '/problems/malformed-body');
  });

  it.each(APPS)('when %s gets a body of another content type, then it is a 415 problem', async (app) => {
    const res = await http('POST', `${apps()[app]}${POSTS[app]}`, {
      token: shop.apiKey,
      rawBody: 'amount=1',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 415, '/problems/unsupported-media-type');
  });

  it.each(APPS)('when %s gets a body over its size limit, then it is a 413 problem', async (app) => {
    const raw = JSON.stringify({ pad: 'x'.repeat(LIMITS[app]) });
    const res = await http('POST', `${apps()[app]}${POSTS[app]}`, { token: shop.apiKey, rawBody: raw });
    expectProblem(res, 413, '/problems/payload-too-large');
  });

  it('when a gateway body has bad fields, then the 400 names each by its JSON path with its reason', async () => {
    const body = anOrderRequest({ amount: '10.001' });
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: { ...body, order: { ...body.order, colour: 'red' } },
    });
    expectProblem(res, 400, '/problems/validation-error');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([{ path: 'order.colour', message: expect.stringMatching(/should not exist/) }]),
    );
    const single = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body });
    expect(single.body.errors).toEqual([{ path: 'order.cost.amount', message: expect.stringMatching(/decimal/) }]);
  });

  it('when the gateway database fails under a request, then the answer is a generic 500 with a traceId the log has with the cause', async () => {
    await db.query('ALTER TABLE gateway.api_keys RENAME TO api_keys_away');
    try {
      const { result: res, logs } = await capturingLogs(() =>
        http('GET', `${stack.gateway!.url}/order/0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21`, { token: shop.apiKey }),
      );
      expectProblem(res, 500, '/problems/internal-error');
      expect(res.body.traceId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(res.body).sort()).toEqual(['detail', 'status', 'title', 'traceId', 'type']);
      expect(logs).toContain(res.body.traceId);
      expect(logs).toMatch(/api_keys/);
      expect(logs).not.toContain(shop.apiKey);
    } finally {
      await db.query('ALTER TABLE gateway.api_keys_away RENAME TO api_keys');
    }
    // With the table back the same key passes the guard again: the body is what is refused now.
    const after = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: {} });
    expectProblem(after, 400, '/problems/validation-error');
  });

  it('when the callbacks-ingest database fails under a signed callback, then the provider gets a generic 500, nothing is stored, and the log has the cause', async () => {
    const raw = JSON.stringify({
      eventId: 'evt-fault-1',
      kind: 'payment',
      reference: '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21',
      status: 'success',
      amount: '1.00',
      currency: 'USD',
    });
    const send = () =>
      http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
        rawBody: raw,
        headers: {
          'content-type': 'application/json',
          'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
        },
      });
    await db.query('ALTER TABLE callbacks_ingest.provider_callbacks RENAME TO provider_callbacks_away');
    try {
      const { result: res, logs } = await capturingLogs(send);
      expectProblem(res, 500, '/problems/internal-error');
      expect(logs).toContain(res.body.traceId);
      expect(logs).toMatch(/provider_callbacks/);
      const outbox = await db.query(`SELECT count(*)::int AS n FROM callbacks_ingest.outbox`);
      expect(outbox.rows[0].n).toBe(0);
    } finally {
      await db.query('ALTER TABLE callbacks_ingest.provider_callbacks_away RENAME TO provider_callbacks');
    }
    // The provider's retry after the fault is taken, once.
    const retried = await send();
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ received: true, duplicate: false });
  });

  it('when an unknown or malformed key is sent, then both are the same 401, with WWW-Authenticate and nothing else revealed', async () => {
    const unknown = await http('GET', `${stack.gateway!.url}/order/0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21`, {
      token: 'sk_unknownunknownunknown',
    });
    const malformed = await http('GET', `${stack.gateway!.url}/order/0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21`, {
      headers: { authorization: 'Basic abc' },
    });
    expectProblem(unknown, 401, '/problems/unauthorized');
    expect(malformed.body).toEqual(unknown.body);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer');
  });
});
