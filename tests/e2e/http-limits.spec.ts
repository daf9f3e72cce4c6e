import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { sign } from '@payments/providers/sandbox';
import { eventually, http } from '@payments/testing';
import { aShop, anOrderRequest } from '../support/merchant';
import { TEST_OPS_TOKEN, TEST_SANDBOX_SECRET, TestStack } from '../support/stack';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request as a misbehaving client sends it: any headers (or none), the body in one piece or chunked. */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
  chunked = false,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    if (body !== undefined && chunked) {
      for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192));
    } else if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Rate limits per API key, and what every HTTP app answers to a body too large or not JSON. */
describe('HTTP limits: rate per key, body size and content type', () => {
  let stack: TestStack;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'callbacks-ingest'],
      extraEnv: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' },
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const gw = (path: string) => `${path.startsWith('/ops/') ? stack.backoffice!.url : stack.gateway!.url}${path}`;
  const companies = async () => Number((await db.query('SELECT count(*) FROM gateway.companies')).rows[0].count);

  it('when a key sends more than its burst, then it gets 429 with Retry-After and RateLimit headers, another key does not, and the key recovers', async () => {
    const shop = await aShop(stack.gateway!.url, 'Busy Shop');
    const other = await http('POST', gw(`/ops/v1/shops/${shop.shopId}/api-keys`), { token: TEST_OPS_TOKEN, body: {} });
    // Any merchant route counts; an unknown order is answered by the gateway alone (no orders service here).
    const call = (key: string) => http('GET', gw('/order/not-an-order'), { token: key });

    const allowed = [await call(shop.apiKey), await call(shop.apiKey), await call(shop.apiKey)];
    expect(allowed.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(allowed.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    expect(allowed[0].headers.get('ratelimit-limit')).toBe('3');

    const limited = await call(shop.apiKey);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ type: '/problems/rate-limited', title: 'Too many requests', status: 429 });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    expect((await call(other.body.apiKey)).status).toBe(404);
    // One token a second: the key gets through again once one is back (polled, not slept).
    await eventually(
      async () => ((await call(shop.apiKey)).status === 404 ? true : undefined),
      10_000,
      'a token to come back',
    );
  });

  it('when a request has no valid key, then it is 401, not counted against anyone', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => http('GET', gw('/order/x'), { token: 'sk_unknownunknownunknown' })),
    );
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
  });

  it('when a body is over the gateway limit (by Content-Length or chunked), then 413 problem and nothing is stored', async () => {
    const before = await companies();
    const big = JSON.stringify({ name: 'x'.repeat(70 * 1024) });
    const sized = await raw(
      gw('/ops/v1/companies'),
      'POST',
      {
        authorization: `Bearer ${TEST_OPS_TOKEN}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(big)),
      },
      big,
    );
    const chunked = await raw(
      gw('/ops/v1/companies'),
      'POST',
      { authorization: `Bearer ${TEST_OPS_TOKEN}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      big,
      true,
    );
    for (const answer of [sized, chunked]) {
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(answer.body).toMatchObject({
        type: '/problems/payload-too-large',
        status: 413,
        detail: expect.any(String),
      });
    }
    expect(await companies()).toBe(before);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
    ['no Content-Type', undefined],
  ])('when a POST body is sent as %s, then 415 names application/json and nothing is stored', async (_, type) => {
    const before = await companies();
    const headers: Record<string, string> = { authorization: `Bearer ${TEST_OPS_TOKEN}` };
    if (type) headers['content-type'] = type;
    const body = JSON.stringify({ name: 'Sent as something else' });
    const answer = await raw(
      gw('/ops/v1/companies'),
      'POST',
      { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      body,
    );
    expect(answer.status).toBe(415);
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(answer.headers['accept-post']).toBe('application/json');
    expect(answer.body).toMatchObject({
      type: '/problems/unsupported-media-type',
      status: 415,
      accepted: ['application/json'],
    });
    expect(answer.body.detail).toContain('application/json');
    expect(await companies()).toBe(before);
  });

  it('when a merchant POSTs an order as text/plain, then 415 (not a confusing 400), and JSON with a charset is accepted', async () => {
    const shop = await aShop(stack.gateway!.url, 'Plain Shop');
    const body = JSON.stringify(anOrderRequest());
    const plain = await http('POST', gw('/order'), {
      token: shop.apiKey,
      rawBody: body,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(plain.status).toBe(415);
    expect(plain.body.type).toBe('/problems/unsupported-media-type');
    // The charset parameter is fine; the gateway gets as far as creating the company.
    const company = await http('POST', gw('/ops/v1/companies'), {
      token: TEST_OPS_TOKEN,
      rawBody: JSON.stringify({ name: 'Charset Co' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(company.status).toBe(201);
    // A POST without a body needs no Content-Type.
    const keys = await http('GET', gw(`/ops/v1/shops/${shop.shopId}/api-keys`), { token: TEST_OPS_TOKEN });
    const revoke = await http('POST', gw(`/ops/v1/shops/${shop.shopId}/api-keys/${keys.body.items[0].id}/revoke`), {
      token: TEST_OPS_TOKEN,
    });
    expect(revoke.status).toBe(200);
  });

  it('when a provider callback is not JSON or too large, then callbacks-ingest answers 415 or 413, and a signed JSON callback still passes its raw-body check', async () => {
    const url = `${stack.ingest!.url}/callbacks/sandbox`;
    const stored = async () =>
      Number((await db.query('SELECT count(*) FROM callbacks_ingest.provider_callbacks')).rows[0].count);
    const before = await stored();
    const callback = JSON.stringify({
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: randomUUID(),
      status: 'success',
      amount: '1.00',
      currency: 'USD',
    });
    const signature = sign(TEST_SANDBOX_SECRET, callback, Math.floor(Date.now() / 1000));

    const plain = await http('POST', url, {
      rawBody: callback,
      headers: { 'content-type': 'text/plain', 'x-signature': signature },
    });
    expect(plain.status).toBe(415);
    expect(plain.body.type).toBe('/problems/unsupported-media-type');
    const huge = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
    const tooLarge = await http('POST', url, {
      rawBody: huge,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, huge, Math.floor(Date.now() / 1000)),
      },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.type).toBe('/problems/payload-too-large');
    expect(await stored()).toBe(before);

    const good = await http('POST', url, {
      rawBody: callback,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-signature': signature },
    });
    expect(good.status).toBe(200);
    expect(await stored()).toBe(before + 1);
  });
});
