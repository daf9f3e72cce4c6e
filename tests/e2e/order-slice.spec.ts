import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { sign } from '@payments/providers/sandbox';
import { eventually, http, TopicReader } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_SANDBOX_SECRET, TestStack } from '../support/stack';

/**
 * Reads every message of a topic from the start, keyed by message key; TopicReader checks each one
 * against docs/asyncapi.yaml.
 */
async function readTopic(topic: string, expectAtLeast: number): Promise<{ key: string; value: any }[]> {
  const reader = await TopicReader.start([topic]);
  try {
    await reader.waitFor(expectAtLeast);
    await new Promise((r) => setTimeout(r, 500)); // anything extra that should not be there
    return reader.on(topic).map((m) => ({ key: m.key!, value: m.json }));
  } finally {
    await reader.stop();
  }
}

describe('one order end to end: merchant → gateway → Kafka → orders → PostgreSQL, provider → callbacks-ingest → orders', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    // These tests play the provider themselves, from a registered order: no automatic attempts
    // (tests/e2e/provider-attempts.spec.ts covers those).
    stack = await TestStack.start({ orders: { dispatch: { autoStart: false } } });
    shop = await aShop(stack.gateway!.url);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const orderCount = async () => Number((await db.query('SELECT count(*) FROM orders.orders')).rows[0].count);
  const callbackCount = async () =>
    Number((await db.query('SELECT count(*) FROM callbacks_ingest.provider_callbacks')).rows[0].count);

  async function sendCallback(body: Record<string, unknown>, secret = TEST_SANDBOX_SECRET) {
    const raw = JSON.stringify(body);
    return http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'x-signature': sign(secret, raw, Math.floor(Date.now() / 1000)) },
    });
  }

  it('when a merchant creates an order, then it is registered with a status code and can be read back under both paths', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '250.50' }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'registered',
      statusCode: '1-01-01',
      statusDescription: expect.any(String),
      order: { cost: { amount: '250.50', currency: 'USD' } },
      data: { payments: [] },
    });
    const read = await http('GET', `${stack.gateway!.url}/api/v1/order/${created.body.id}`, { token: shop.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    expect(read.body.status).toBe('registered');

    const row = await db.query('SELECT amount, status FROM orders.orders WHERE id = $1', [created.body.id]);
    expect(row.rows[0]).toEqual({ amount: '250.500000000000000000', status: 'registered' });
  });

  it('when the sandbox sends a signed success callback with the order amount, then the order is completed, once, even if the callback is repeated', async () => {
    const created = await http('POST', `${stack.gateway!.url}/api/v1/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '100.00' }),
    });
    expect(created.status).toBe(201);
    const orderId = created.body.id as string;

    const callback = {
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: orderId,
      paymentId: 'pay-1',
      status: 'success',
      amount: '100.00',
      currency: 'USD',
    };
    const first = await sendCallback(callback);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, duplicate: false });
    const again = await sendCallback(callback);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ received: true, duplicate: true });
    // The repeat wrote nothing: one raw and one normalized event in callbacks-ingest's outbox.
    const published = await db.query(
      `SELECT topic, count(*)::int AS n FROM callbacks_ingest.outbox WHERE key = $1 GROUP BY topic ORDER BY topic`,
      [orderId],
    );
    expect(published.rows.map((r) => [r.topic, r.n])).toEqual([
      ['provider.callbacks.received', 1],
      ['provider.events', 1],
    ]);

    const done = await eventually(
      async () => {
        const r = await http('GET', `${stack.gateway!.url}/order/${orderId}`, { token: shop.apiKey });
        return r.body.status === 'completed' ? r.body : undefined;
      },
      15000,
      'order completed',
    );
    expect(done).toMatchObject({ statusCode: '0-01-00', statusDescription: 'Operation completed successfully.' });
    expect(done.data.payments).toEqual([
      expect.objectContaining({
        paymentId: 'pay-1',
        status: 'success',
        amount: '100.00',
        currency: 'USD',
        statusCode: '0-01-00',
      }),
    ]);

    // Exactly two status changes left through the outbox for this order: registered, completed.
    const events = (await readTopic(`${stack.prefix}orders.events`, 2)).filter((m) => m.key === orderId);
    expect(events.map((e) => [e.value.payload.sequence, e.value.payload.status])).toEqual([
      [1, 'registered'],
      [2, 'completed'],
    ]);
    const row = await db.query('SELECT sequence FROM orders.orders WHERE id = $1', [orderId]);
    expect(row.rows[0].sequence).toBe(2);
  });

  it('when the same callback arrives eight times at once, then every copy is answered 200, one is stored and the rest are duplicates', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '12.00' }),
    });
    const callback = {
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: created.body.id,
      status: 'success',
      amount: '12.00',
      currency: 'USD',
    };
    const answers = await Promise.all(Array.from({ length: 8 }, () => sendCallback(callback)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    const stored = await db.query(
      'SELECT count(*)::int AS n FROM callbacks_ingest.provider_callbacks WHERE reference = $1',
      [created.body.id],
    );
    expect(stored.rows[0].n).toBe(1);
  });

  it('when the provider sandbox is asked to send the callback, then it signs it and the order completes', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '7.25', currency: 'EUR' }),
    });
    const sim = await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: { reference: created.body.id, status: 'success', amount: '7.25', currency: 'EUR' },
    });
    expect(sim.body).toMatchObject({ delivered: true, responseStatus: 200 });
    await eventually(
      async () => {
        const r = await http('GET', `${stack.gateway!.url}/order/${created.body.id}`, { token: shop.apiKey });
        return r.body.status === 'completed' ? true : undefined;
      },
      15000,
      'order completed',
    );
  });

  it.each([
    ['a non-numeric amount', 'order.cost.amount', { amount: 'ten' }],
    ['a negative amount', 'order.cost.amount', { amount: '-5.00' }],
    ['a zero amount', 'order.cost.amount', { amount: '0.00' }],
    ['exponent notation', 'order.cost.amount', { amount: '1e3' }],
    ['spaces around the amount', 'order.cost.amount', { amount: ' 10.00' }],
    ['more decimals than USD allows', 'order.cost.amount', { amount: '10.001' }],
    ['decimals in JPY, which has none', 'order.cost.amount', { amount: '10.5', currency: 'JPY' }],
    ['an unknown currency', 'order.cost.currency', { currency: 'XXQ' }],
    ['an unknown field', 'surprise', { extra: { surprise: true } }],
    [
      'the removed cryptoPayment object',
      'cryptoPayment',
      { extra: { cryptoPayment: { walletTokenStandard: 'TRC20' } } },
    ],
  ])(
    'when an order has %s, then it is a 400 problem naming %s and nothing is stored',
    async (_what, path, overrides) => {
      const before = await orderCount();
      const res = await http('POST', `${stack.gateway!.url}/order`, {
        token: shop.apiKey,
        body: anOrderRequest(overrides as never),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({
        type: '/problems/validation-error',
        status: 400,
        title: expect.any(String),
        detail: expect.any(String),
      });
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(await orderCount()).toBe(before);
    },
  );

  it('when cryptoPayment is sent, then the detail names its three replacements', async () => {
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ extra: { cryptoPayment: {} } }),
    });
    expect(res.status).toBe(400);
    for (const field of [
      'order.cost.tokenStandard',
      'recipient.merchantBalance.currency',
      'recipient.merchantBalance.tokenStandard',
    ]) {
      expect(res.body.detail).toContain(field);
    }
  });

  it('when the amount is a JSON number, then it is refused: money travels as a decimal string', async () => {
    const body = anOrderRequest();
    (body.order.cost as Record<string, unknown>).amount = 100.5;
    const res = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      path: 'order.cost.amount',
      message: expect.stringContaining('decimal string'),
    });
  });

  it('when the body is not JSON, then it is a 400 problem', async () => {
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      rawBody: '{"order":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('when a request has no key or an unknown key, then it is 401 and says nothing more', async () => {
    const none = await http('POST', `${stack.gateway!.url}/order`, { body: anOrderRequest() });
    const unknown = await http('POST', `${stack.gateway!.url}/order`, {
      token: 'sk_' + 'x'.repeat(43),
      body: anOrderRequest(),
    });
    for (const res of [none, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthorized');
    }
    expect(none.body.detail).toBe(unknown.body.detail);
  });

  it("when a shop asks for another shop's order, then it is 404 exactly as if it did not exist", async () => {
    const other = await aShop(stack.gateway!.url, 'Other Shop');
    const created = await http('POST', `${stack.gateway!.url}/order`, { token: other.apiKey, body: anOrderRequest() });
    const theirs = await http('GET', `${stack.gateway!.url}/order/${created.body.id}`, { token: shop.apiKey });
    const missing = await http('GET', `${stack.gateway!.url}/order/${randomUUID()}`, { token: shop.apiKey });
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(theirs.body.detail.replace(created.body.id, '<id>')).toEqual(
      missing.body.detail.replace(/[0-9a-f-]{36}/, '<id>'),
    );
    expect({ ...theirs.body, detail: '' }).toEqual({ ...missing.body, detail: '' });
  });

  it('when the merchant order id is reused in the same shop, then it is a 409 naming the existing order', async () => {
    const body = anOrderRequest();
    const first = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body });
    const second = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body });
    expect(second.status).toBe(409);
    expect(second.body.orderId).toBe(first.body.id);
  });

  it('when a callback is unsigned, wrongly signed or malformed, then it is 401 or 400 and nothing is stored or published', async () => {
    const before = await callbackCount();
    const body = {
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: randomUUID(),
      status: 'success',
      amount: '1.00',
      currency: 'USD',
    };
    const unsigned = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, { body });
    expect(unsigned.status).toBe(401);
    const wrong = await sendCallback(body, 'not-the-secret');
    expect(wrong.status).toBe(401);
    const raw = JSON.stringify(body);
    const stale = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000) - 301),
      },
    });
    expect(stale.status).toBe(401);
    const malformed = await sendCallback({ ...body, amount: 'lots' });
    expect(malformed.status).toBe(400);
    expect(await callbackCount()).toBe(before);
    const outbox = await db.query(
      `SELECT count(*) FROM callbacks_ingest.outbox WHERE envelope->'payload'->>'reference' = $1`,
      [body.reference],
    );
    expect(Number(outbox.rows[0].count)).toBe(0);
  });
});
