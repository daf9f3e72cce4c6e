import { randomUUID } from 'node:crypto';
import { sign } from '@payments/providers/sandbox';
import { Client } from 'pg';
import { IdempotencyPurgeService, loadGatewayConfig } from '@payments/apps/gateway';
import { EnvReader } from '@payments/platform';
import { eventually, http, HttpResult, TopicReader } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TEST_SANDBOX_SECRET, TestStack } from '../support/stack';

/**
 * Idempotency-Key on merchant POSTs, through the running gateway and orders services on the real
 * broker and database: replays, key reuse, a double-submit race, and a retry after a timeout.
 */
describe('merchant idempotency: the same request twice has one effect', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let events: TopicReader;

  beforeAll(async () => {
    // The reply timeout as deployed (5 s): the "orders is down" case waits it out once. A 3 s one
    // timed out this suite's first order once in CI, on two cores shared with another jest worker,
    // and a 5 s one once too, when the topic reader compiled its contract checks at its first
    // message and stopped this process (and every service in it) for over a second; it compiles
    // them when it starts now.
    // callbacks-ingest only to complete an order for the refund case (the test plays the provider).
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest'] });
    shop = await aShop(stack.gateway!.url, 'Idempotent Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    events = await TopicReader.start([`${stack.prefix}orders.events`]);
  });

  afterAll(async () => {
    await events?.stop();
    await db?.end();
    await stack?.stop();
  });

  const url = (path: string) => `${stack.gateway!.url}${path}`;
  const post = (path: string, body: unknown, key?: string, token = shop.apiKey): Promise<HttpResult> =>
    http('POST', url(path), { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const ordersWith = async (merchantOrderId: string): Promise<string[]> =>
    (await db.query('SELECT id FROM orders.orders WHERE merchant_order_id = $1', [merchantOrderId])).rows.map(
      (r) => r.id,
    );
  const record = async (key: string, shopId = shop.shopId) =>
    (
      await db.query(
        'SELECT state, response_status FROM gateway.idempotency_keys WHERE shop_id = $1 AND idempotency_key = $2',
        [shopId, key],
      )
    ).rows[0];

  it('when the same key and body are sent again, then the first answer is replayed with Idempotent-Replayed and no second order exists', async () => {
    const key = `create-${randomUUID()}`;
    const body = anOrderRequest({ amount: '42.00' });
    const first = await post('/order', body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await post('/order', body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(again.body).toEqual(first.body);
    // The same operation under its /api/v1 name, with the body's keys in another order.
    const reordered = {
      payer: body.payer,
      order: {
        description: body.order.description,
        cost: body.order.cost,
        merchantOrderId: body.order.merchantOrderId,
      },
    };
    const viaV1 = await post('/api/v1/order', reordered, key);
    expect(viaV1.status).toBe(201);
    expect(viaV1.text).toBe(first.text);

    expect(await ordersWith(body.order.merchantOrderId)).toEqual([first.body.id]);
    expect(await record(key)).toEqual({ state: 'completed', response_status: 201 });
  });

  it('when the same key comes with another body or on another route, then 422 names the key and nothing is done', async () => {
    const key = `reuse-${randomUUID()}`;
    const body = anOrderRequest();
    const first = await post('/order', body, key);
    expect(first.status).toBe(201);

    const otherBody = { ...body, order: { ...body.order, cost: { amount: '1.00', currency: 'USD' } } };
    const changed = await post('/order', otherBody, key);
    expect(changed.status).toBe(422);
    expect(changed.headers.get('content-type')).toContain('application/problem+json');
    expect(changed.body).toMatchObject({
      type: '/problems/idempotency-key-reused',
      status: 422,
      errors: [{ path: "headers['Idempotency-Key']", message: 'was first used with another request body' }],
    });

    const otherRoute = await post('/order/cancel', { orderId: first.body.id }, key);
    expect(otherRoute.status).toBe(422);
    expect(otherRoute.body.type).toBe('/problems/idempotency-key-reused');
    // The cancel did not happen.
    const read = await http('GET', url(`/order/${first.body.id}`), { token: shop.apiKey });
    expect(read.body.status).toBe('registered');
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([first.body.id]);
  });

  it('when another shop uses the same key, then it is a key of its own', async () => {
    const other = await aShop(stack.gateway!.url, 'Other Idempotent Shop');
    const key = `shared-${randomUUID()}`;
    const mine = await post('/order', anOrderRequest(), key);
    const theirs = await post('/order', anOrderRequest(), key, other.apiKey);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it.each([
    ['empty', ''],
    ['with a space', 'two words'],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
  ])('when the Idempotency-Key is %s, then 400 names the header and no order is made', async (_, key) => {
    const body = anOrderRequest();
    const answer = await post('/order', body, key);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      type: '/problems/validation-error',
      errors: [{ path: "headers['Idempotency-Key']", message: expect.any(String) }],
    });
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([]);
  });

  it('when a first request was refused as invalid (400), then it is not kept: the corrected body with the same key runs', async () => {
    const key = `fix-${randomUUID()}`;
    const body = anOrderRequest();
    const invalid = await post(
      '/order',
      { ...body, order: { ...body.order, cost: { amount: 12.5, currency: 'USD' } } },
      key,
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([expect.objectContaining({ path: 'order.cost.amount' })]);
    expect(await record(key)).toBeUndefined();

    const fixed = await post('/order', body, key);
    expect(fixed.status).toBe(201);
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([fixed.body.id]);
  });

  it('when a merchantOrderId is used twice in a shop, then the second order is a 409 naming the first, and with a key that 409 is replayed', async () => {
    const first = await post('/order', anOrderRequest({ merchantOrderId: `dup-${randomUUID()}` }), undefined);
    expect(first.status).toBe(201);
    const merchantOrderId = first.body.order.merchantOrderId;

    const noKey = await post('/order', anOrderRequest({ merchantOrderId }), undefined);
    expect(noKey.status).toBe(409);
    expect(noKey.body).toMatchObject({
      type: '/problems/conflict',
      orderId: first.body.id,
      errors: [{ path: 'order.merchantOrderId' }],
    });

    const key = `dup-${randomUUID()}`;
    const body = anOrderRequest({ merchantOrderId });
    const conflict = await post('/order', body, key);
    expect(conflict.status).toBe(409);
    const replay = await post('/order', body, key);
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toContain('application/problem+json');
    expect(replay.body).toEqual(conflict.body);
    expect(await ordersWith(merchantOrderId)).toEqual([first.body.id]);
  });

  it('when ten identical POST /order race with one key, then exactly one order exists and every answer is that 201 or a 409 in-progress', async () => {
    const key = `race-${randomUUID()}`;
    const body = anOrderRequest({ amount: '77.00' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/order', body, key)));

    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of created) expect(a.body).toEqual(created[0].body);
    for (const b of busy) {
      expect(b.body.type).toBe('/problems/idempotency-request-in-progress');
      expect(b.headers.get('retry-after')).toBe('1');
    }
    const orderId = created[0].body.id;
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([orderId]);
    expect((await http('GET', url(`/order/${orderId}`), { token: shop.apiKey })).body.id).toBe(orderId);
    // One order, so one "registered" event on orders.events (what merchant callbacks will read).
    await events.waitFor(1, (m) => m.key === orderId);
    const replay = await post('/order', body, key);
    expect(replay.body).toEqual(created[0].body);
    expect(events.on(`${stack.prefix}orders.events`).filter((m) => m.key === orderId)).toHaveLength(1);
  });

  it('when orders is down, then the POST is a 503 that keeps nothing, and the retry with the same key once it is back gives one order', async () => {
    const key = `timeout-${randomUUID()}`;
    const body = anOrderRequest({ amount: '55.00' });
    const running = stack.orders!.splice(0, stack.orders!.length);
    for (const o of running) await o.close();

    const timedOut = await post('/order', body, key);
    expect(timedOut.status).toBe(503);
    expect(timedOut.body).toMatchObject({ type: '/problems/service-unavailable', retryable: true });
    expect(timedOut.headers.get('retry-after')).toBeTruthy();
    expect(await record(key)).toBeUndefined();

    // Orders comes back and takes the command the gateway already sent, creating the order the
    // merchant never heard of; only then does the merchant retry, so the retry must find it.
    await stack.startOrders();
    const [madeWhileUnanswered] = await eventually(
      async () => {
        const ids = await ordersWith(body.order.merchantOrderId);
        return ids.length > 0 ? ids : undefined;
      },
      45_000,
      'orders to take the pending command',
    );
    const retried = await eventually(
      async () => {
        const r = await post('/order', body, key);
        return r.status === 201 ? r : undefined;
      },
      30_000,
      'the retry to succeed',
    );
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.id).toBe(madeWhileUnanswered);
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([madeWhileUnanswered]);
    await events.waitFor(1, (m) => m.key === retried.body.id);
    expect(events.on(`${stack.prefix}orders.events`).filter((m) => m.key === retried.body.id)).toHaveLength(1);
  });

  it("when a refund's answer was lost (its record released, as after a timeout), then the retry with the same key refunds once", async () => {
    const order = (await post('/order', anOrderRequest({ amount: '100.00' }), undefined)).body;
    const callback = JSON.stringify({
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: order.id,
      paymentId: 'pay-1',
      status: 'success',
      amount: '100.00',
      currency: 'USD',
    });
    const paid = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: callback,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, callback, Math.floor(Date.now() / 1000)),
      },
    });
    expect(paid.status).toBe(200);
    await eventually(
      async () =>
        (await http('GET', url(`/order/${order.id}`), { token: shop.apiKey })).body.status === 'completed'
          ? true
          : undefined,
      15_000,
      'order completed',
    );

    const key = `refund-${randomUUID()}`;
    const body = { orderId: order.id, cost: { amount: '30.00', currency: 'USD' } };
    const first = await post('/api/v1/order/refund', body, key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'partially_refunded', data: { refunds: [{ amount: '30.00' }] } });
    // What the gateway does when the answer never came: forget the record so the retry runs again.
    await db.query('DELETE FROM gateway.idempotency_keys WHERE shop_id = $1 AND idempotency_key = $2', [
      shop.shopId,
      key,
    ]);

    const retry = await post('/order/refund', body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.data.refunds).toHaveLength(1);
    const refunds = await db.query('SELECT amount FROM orders.refunds WHERE order_id = $1', [order.id]);
    expect(refunds.rows).toEqual([{ amount: expect.stringMatching(/^30\.0+$/) }]);
    // A new key is a new refund.
    const second = await post('/order/refund', body, `refund-${randomUUID()}`);
    expect(second.body.data.refunds).toHaveLength(2);
  });

  it('when a record is left in progress (its gateway died mid-request), then a retry is 409 until it is stale, then takes it over and gets the same order', async () => {
    const key = `orphan-${randomUUID()}`;
    const body = anOrderRequest();
    const first = await post('/order', body, key);
    expect(first.status).toBe(201);
    // As a gateway that died after the order was made but before its answer was stored leaves it.
    const orphan = (startedAt: string) =>
      db.query(
        `UPDATE gateway.idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL, started_at = ${startedAt}
                WHERE shop_id = $1 AND idempotency_key = $2`,
        [shop.shopId, key],
      );

    await orphan('now()');
    const busy = await post('/order', body, key);
    expect(busy.status).toBe(409);
    expect(busy.body.type).toBe('/problems/idempotency-request-in-progress');
    expect(busy.headers.get('retry-after')).toBe('1');

    await orphan(`now() - interval '1 hour'`);
    const takenOver = await post('/order', body, key);
    expect(takenOver.status).toBe(201);
    expect(takenOver.headers.get('idempotent-replayed')).toBeNull();
    expect(takenOver.body.id).toBe(first.body.id);
    expect(await ordersWith(body.order.merchantOrderId)).toEqual([first.body.id]);
    expect(await record(key)).toEqual({ state: 'completed', response_status: 201 });
  });

  it('when cancel and the deprecated reject are repeated with a key, then the answer and its headers are replayed', async () => {
    const order = await post('/order', anOrderRequest(), undefined);
    const key = `reject-${randomUUID()}`;
    const first = await post('/api/v1/order/reject', { orderId: order.body.id }, key);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('cancelled');
    const replay = await post('/api/v1/order/reject', { orderId: order.body.id }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    for (const h of ['deprecation', 'sunset', 'link']) expect(replay.headers.get(h)).toBe(first.headers.get(h));
    expect(replay.body).toEqual(first.body);

    const unknown = `cancel-${randomUUID()}`;
    const missing = await post('/order/cancel', { orderId: randomUUID() }, unknown);
    expect(missing.status).toBe(404);
    expect(await record(unknown)).toEqual({ state: 'completed', response_status: 404 });
  });

  it('when the purge runs, then records older than the retention are deleted and younger ones kept', async () => {
    const key = `purge-${randomUUID()}`;
    expect((await post('/order', anOrderRequest(), key)).status).toBe(201);
    const purge = stack.gateway!.app.get(IdempotencyPurgeService);
    const hours = (h: number) => new Date(Date.now() + h * 3600_000);

    await purge.purge(hours(23));
    expect(await record(key)).toBeDefined();
    expect(await purge.purge(hours(24.5))).toBeGreaterThanOrEqual(1);
    expect(await record(key)).toBeUndefined();
  });

  it('when a client reads the OpenAPI document, then every merchant POST documents Idempotency-Key and operator routes do not', async () => {
    const doc = (await http('GET', url('/docs/openapi.json'))).body;
    const hasKey = (op: { parameters?: { name: string; in: string }[] }) =>
      (op.parameters ?? []).some((p) => p.name === 'Idempotency-Key' && p.in === 'header');
    for (const path of [
      '/order',
      '/api/v1/order',
      '/order/cancel',
      '/order/reject',
      '/order/refund',
      '/api/v1/order/refund',
    ]) {
      expect({ path, documented: hasKey(doc.paths[path].post) }).toEqual({ path, documented: true });
    }
    // Operator routes are the backoffice's, in its own document, and take no Idempotency-Key.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/ops'))).toEqual([]);
    const opsDoc = (await http('GET', `${opsUrlOf(stack.gateway!.url)}/docs/openapi.json`)).body;
    expect(hasKey(opsDoc.paths['/ops/v1/companies'].post)).toBe(false);
  });

  it('when the retention is configured below 24 hours, then the gateway refuses to start, naming the variable', () => {
    const env = new EnvReader({
      DATABASE_URL: 'postgres://x',
      KAFKA_BROKERS: 'x:1',
      OPS_TOKEN: TEST_OPS_TOKEN,
      IDEMPOTENCY_RETENTION_HOURS: '12',
    });
    expect(() => loadGatewayConfig(env)).toThrow(/IDEMPOTENCY_RETENTION_HOURS/);
  });
});
