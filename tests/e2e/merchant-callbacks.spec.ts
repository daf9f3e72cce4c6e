import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Producer } from 'kafkajs';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { loadBackofficeConfig, RunningBackoffice, startBackoffice } from '@payments/apps/backoffice';
import { loadGatewayConfig, RunningGateway, startGateway } from '@payments/apps/gateway';
import { loadMerchantCallbacksConfig, startMerchantCallbacks } from '@payments/apps/merchant-callbacks';
import { verifySignature } from '@payments/callback-signature';
import { envelope, Topics } from '@payments/contracts';
import { sign } from '@payments/providers/sandbox';
import { statusOf } from '@payments/status-codes';
import { eventually, http, testKafka, TopicReader, uniqueName } from '@payments/testing';
import { verifyCallback } from '../../examples/merchant-callback-verify/verify';
import { CallbackReceiver, ReceivedCallback } from '../support/callback-receiver';
import { anOrder as createOrder, anOrderRequest } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TEST_SANDBOX_SECRET, TestStack } from '../support/stack';

interface Shop {
  shopId: string;
  apiKey: string;
  callbackSecret: string;
}

/**
 * Merchant callbacks through the running services: gateway, orders, callbacks-ingest, the sandbox
 * and merchant-callbacks, against the real broker and database, posting to real HTTP receivers on
 * this machine. Amounts end in .99: the sandbox accepts such payments (in_progress) and never calls
 * back, so tests send the provider's success callback themselves.
 */
describe('merchant callbacks: every status change reaches the merchant, signed, in order, once', () => {
  let stack: TestStack;
  let db: Client;
  let producer: Producer;
  const receivers: CallbackReceiver[] = [];

  beforeAll(async () => {
    // Few slots, so that the test of a hanging merchant shows the per-shop bound.
    stack = await TestStack.start({
      extraEnv: {
        ORDERS_SWEEP_INTERVAL_MS: '0',
        MERCHANT_CALLBACKS_CONCURRENCY: '4',
        MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY: '2',
      },
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    producer = testKafka('callbacks-test').producer();
    await producer.connect();
  });

  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await producer?.disconnect();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const ops = (method: string, path: string, body?: unknown, url = opsUrlOf(gw())) =>
    http(method, `${url}/ops/v1${path}`, { token: TEST_OPS_TOKEN, body });

  async function aReceiver(): Promise<CallbackReceiver> {
    const r = await CallbackReceiver.start();
    receivers.push(r);
    return r;
  }

  /** A shop whose settings (callback URL and secret) merchant-callbacks already holds. */
  async function aShopCalling(callbackUrl: string | undefined): Promise<Shop> {
    const company = await ops('POST', '/companies', { name: 'Callback Co' });
    const res = await ops('POST', `/companies/${company.body.id}/shops`, {
      name: 'Callback Shop',
      ...(callbackUrl ? { callbackUrl } : {}),
    });
    expect(res.status).toBe(201);
    await eventually(
      async () => {
        const r = await db.query('SELECT 1 FROM merchant_callbacks.shops WHERE shop_id = $1', [res.body.id]);
        return r.rowCount === 1 ? true : undefined;
      },
      15000,
      'shop settings in merchant-callbacks',
    );
    return { shopId: res.body.id, apiKey: res.body.apiKey, callbackSecret: res.body.callbackSecret };
  }

  const anOrder = (shop: Shop, extra: Record<string, unknown> = {}) => createOrder(gw(), shop, {}, extra);

  /** The sandbox provider reports the payment of an order as a success. */
  async function paid(orderId: string): Promise<void> {
    const providerEventId = `evt-${randomUUID()}`;
    const raw = JSON.stringify({
      eventId: providerEventId,
      kind: 'payment',
      reference: orderId,
      paymentId: 'p1',
      status: 'success',
      amount: '100.99',
      currency: 'USD',
    });
    const res = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
      },
    });
    expect(res.status).toBe(200);
    expect(callbackEventId('sandbox', providerEventId)).toBeDefined();
  }

  const of = (r: CallbackReceiver, objectId: string) => r.received.filter((c) => c.json?.objectId === objectId);
  const acceptedOf = (r: CallbackReceiver, objectId: string) =>
    r.accepted().filter((c) => c.json?.objectId === objectId);
  const untilAccepted = (r: CallbackReceiver, objectId: string, n: number, timeoutMs = 20000) =>
    eventually(
      async () => (acceptedOf(r, objectId).length >= n ? acceptedOf(r, objectId) : undefined),
      timeoutMs,
      `${n} callbacks of ${objectId}`,
    );
  const validSignature = (c: ReceivedCallback, secret: string) =>
    verifySignature(c.headers['x-signature'] as string, c.raw, secret, Math.floor(Date.now() / 1000)).kind;

  describe('an order that is paid', () => {
    let receiver: CallbackReceiver;
    let shop: Shop;
    let order: { id: string; order: { merchantOrderId: string } };
    let got: ReceivedCallback[];

    beforeAll(async () => {
      receiver = await aReceiver();
      shop = await aShopCalling(receiver.url);
      order = await anOrder(shop);
      await untilAccepted(receiver, order.id, 2); // registered, then in_progress once the sandbox took the attempt
      await paid(order.id);
      got = await untilAccepted(receiver, order.id, 3);
    });

    it('when the order is created and then completed, then the shop URL receives each status change in sequence', () => {
      expect(got.map((c) => [c.json.sequence, c.json.status, c.json.previousStatus])).toEqual([
        [1, 'registered', null],
        [2, 'in_progress', 'registered'],
        [3, 'completed', 'in_progress'],
      ]);
      expect(got[2].json).toMatchObject({
        type: 'order.status_changed',
        objectType: 'order',
        objectId: order.id,
        shopId: shop.shopId,
        merchantOrderId: order.order.merchantOrderId,
        cost: { amount: '100.99', currency: 'USD' },
        ...statusOf('0-01-00'),
      });
      expect(Date.parse(got[2].json.occurredAt)).not.toBeNaN();
    });

    it('when a callback arrives, then it is signed with the shop secret over the raw body (the merchant example verifies it) and names its eventId', () => {
      for (const c of got) {
        expect(c.headers['content-type']).toBe('application/json');
        expect(c.headers['x-event-id']).toBe(c.json.eventId);
        expect(validSignature(c, shop.callbackSecret)).toBe('valid');
        expect(verifyCallback(c.raw, c.headers['x-signature'] as string, shop.callbackSecret)).toEqual({
          valid: true,
          timestamp: expect.any(Number),
        });
        expect(validSignature(c, 'another-secret')).toBe('invalid');
        expect(
          verifySignature(
            c.headers['x-signature'] as string,
            c.raw + ' ',
            shop.callbackSecret,
            Math.floor(Date.now() / 1000),
          ).kind,
        ).toBe('invalid');
      }
      expect(new Set(got.map((c) => c.json.eventId)).size).toBe(3);
    });

    it('when the shop settings carry the callback secret, then merchant-callbacks keeps it, sealed, and orders does not', async () => {
      const mine = await db.query('SELECT callback_secret FROM merchant_callbacks.shops WHERE shop_id = $1', [
        shop.shopId,
      ]);
      expect(mine.rows[0].callback_secret).toMatch(/^v1:/);
      expect(mine.rows[0].callback_secret).not.toContain(shop.callbackSecret);
      const theirs = await eventually(
        async () => {
          const r = await db.query('SELECT settings FROM orders.shop_settings WHERE shop_id = $1', [shop.shopId]);
          return r.rows[0]?.settings;
        },
        15000,
        'settings in orders',
      );
      expect(theirs.callbackUrl).toBe(receiver.url);
      expect(JSON.stringify(theirs)).not.toContain(shop.callbackSecret);
    });

    it("when an operator lists the order's deliveries, then they are newest first, delivered, with each attempt's response code", async () => {
      const list = await ops('GET', `/callbacks?objectId=${order.id}`);
      expect(list.status).toBe(200);
      expect(list.body.items.map((d: any) => [d.sequence, d.status, d.lastResponseStatus])).toEqual([
        [3, 'delivered', 200],
        [2, 'delivered', 200],
        [1, 'delivered', 200],
      ]);
      const one = await ops('GET', `/callbacks/${list.body.items[2].id}`);
      expect(one.status).toBe(200);
      expect(one.body.body.eventId).toBe(got[0].json.eventId);
      expect(one.body.attemptLog).toEqual([
        expect.objectContaining({
          attempt: 1,
          responseStatus: 200,
          error: null,
          url: receiver.url,
          latencyMs: expect.any(Number),
        }),
      ]);
    });

    it('when an operator replays a delivery, then the merchant receives it again with the same eventId and a fresh signature', async () => {
      const list = await ops('GET', `/callbacks?objectId=${order.id}&limit=1`);
      const latest = list.body.items[0];
      const before = acceptedOf(receiver, order.id).length;
      const replay = await ops('POST', `/callbacks/${latest.id}/replay`);
      expect(replay.status).toBe(200);
      const again = (await untilAccepted(receiver, order.id, before + 1)).at(-1)!;
      expect(again.json.eventId).toBe(latest.eventId);
      expect(again.raw).toBe(got[2].raw);
      expect(validSignature(again, shop.callbackSecret)).toBe('valid');
      const detail = await eventually(
        async () => {
          const r = await ops('GET', `/callbacks/${latest.id}`);
          return r.body.attemptLog.length === 2 && r.body.status === 'delivered' ? r.body : undefined;
        },
        15000,
        'second attempt logged',
      );
      expect(detail.attempts).toBe(2);
    });

    it('when an operator pages through the log with limit and cursor, then every delivery shows up once', async () => {
      const first = await ops('GET', `/callbacks?shopId=${shop.shopId}&limit=2`);
      expect(first.body.items).toHaveLength(2);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await ops('GET', `/callbacks?shopId=${shop.shopId}&limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((d: any) => d.sequence)).toEqual([1]);
      expect(second.body.nextCursor).toBeNull();
    });

    it('when the operator API is called with a merchant key or bad filters, then it refuses', async () => {
      expect((await http('GET', `${opsUrlOf(gw())}/ops/v1/callbacks`, { token: shop.apiKey })).status).toBe(401);
      const bad = await ops('GET', '/callbacks?status=lost&limit=0');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['limit', 'status']);
      expect((await ops('GET', `/callbacks/${randomUUID()}`)).status).toBe(404);
      const noTarget = await ops('POST', '/callbacks/replay', { status: 'failed' });
      expect(noTarget.status).toBe(400);
      expect(noTarget.body.errors[0].path).toBe('deliveryIds');
      // A replay of a shop's deliveries is audited on that shop (its id is in the body).
      const replayed = await ops('POST', '/callbacks/replay', { shopId: shop.shopId, status: 'failed' });
      expect(replayed.status).toBe(200);
      const audit = await ops('GET', `/audit?action=delivery.replay-many&objectId=${shop.shopId}`);
      expect(audit.body.items).toHaveLength(1);
    });
  });

  it('when an order names its own callback URL, then its callbacks go there and not to the shop URL', async () => {
    const shopReceiver = await aReceiver();
    const orderReceiver = await aReceiver();
    const shop = await aShopCalling(shopReceiver.url);
    const order = await anOrder(shop, { callbackUrl: orderReceiver.url });
    const got = await untilAccepted(orderReceiver, order.id, 2);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2]);
    expect(of(shopReceiver, order.id)).toHaveLength(0);
  });

  it('when the merchant endpoint answers 503 for a while, then once it is back every callback arrives, in order, once each', async () => {
    const receiver = await aReceiver();
    receiver.mode = 503;
    const shop = await aShopCalling(receiver.url);
    const order = await anOrder(shop);
    await eventually(
      async () => (of(receiver, order.id).length >= 3 ? true : undefined),
      20000,
      'three refused attempts',
    );
    await eventually(
      async () => {
        const r = await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey });
        return r.body.status === 'in_progress' ? true : undefined;
      },
      15000,
      'order in progress',
    );
    await paid(order.id);
    await eventually(
      async () => {
        const r = await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey });
        return r.body.status === 'completed' ? true : undefined;
      },
      15000,
      'order completed',
    );
    // While the first callback is refused, the later ones wait behind it: nothing overtakes.
    expect(new Set(of(receiver, order.id).map((c) => c.json.sequence))).toEqual(new Set([1]));

    receiver.mode = 200;
    const got = await untilAccepted(receiver, order.id, 3);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2, 3]);
    const byEvent = new Map<string, number>();
    for (const c of acceptedOf(receiver, order.id)) byEvent.set(c.json.eventId, (byEvent.get(c.json.eventId) ?? 0) + 1);
    expect([...byEvent.values()]).toEqual([1, 1, 1]);

    const list = await ops('GET', `/callbacks?objectId=${order.id}`);
    const first = await ops('GET', `/callbacks/${list.body.items.at(-1).id}`);
    const codes = first.body.attemptLog.map((a: any) => a.responseStatus);
    expect(codes.at(-1)).toBe(200);
    expect(codes.slice(0, -1).every((c: number) => c === 503)).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(4);
    expect(first.body.attemptLog.map((a: any) => a.attempt)).toEqual(codes.map((_: unknown, i: number) => i + 1));
  });

  it('when merchant-callbacks restarts while a merchant is down, then nothing queued is lost', async () => {
    const receiver = await aReceiver();
    receiver.mode = 503;
    const shop = await aShopCalling(receiver.url);
    const order = await anOrder(shop);
    await eventually(async () => (of(receiver, order.id).length >= 2 ? true : undefined), 20000, 'refused attempts');
    await stack.merchantCallbacks!.close();
    receiver.mode = 200;
    stack.merchantCallbacks = await startMerchantCallbacks(
      loadMerchantCallbacksConfig(
        stack.env({ MERCHANT_CALLBACKS_CONCURRENCY: '4', MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY: '2' }),
      ),
      0,
    );
    const got = await untilAccepted(receiver, order.id, 2);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2]);
    expect(new Set(got.map((c) => c.json.eventId)).size).toBe(2);
  });

  it("when one merchant endpoint hangs, then another shop's callbacks still go out, and the hanging shop holds at most its own slots", async () => {
    const hanging = await aReceiver();
    hanging.mode = 'hang';
    const healthy = await aReceiver();
    const slow = await aShopCalling(hanging.url);
    const fast = await aShopCalling(healthy.url);
    const slowOrders = [await anOrder(slow), await anOrder(slow), await anOrder(slow)];
    await eventually(
      async () => (hanging.received.length >= 2 ? true : undefined),
      15000,
      'the hanging shop being called',
    );
    const fastOrders = [await anOrder(fast), await anOrder(fast)];
    for (const o of fastOrders) await untilAccepted(healthy, o.id, 2);
    // Everything of the healthy shop arrived while the hanging endpoint had not answered a single request.
    expect(hanging.received.every((c) => c.answered === undefined)).toBe(true);
    expect(hanging.maxOpen).toBeLessThanOrEqual(2);
    hanging.release(200);
    for (const o of slowOrders) await untilAccepted(hanging, o.id, 2, 30000);
  });

  it('when a shop has no callback URL, then its callbacks are recorded as skipped', async () => {
    const shop = await aShopCalling(undefined);
    const order = await anOrder(shop);
    const list = await eventually(
      async () => {
        const r = await ops('GET', `/callbacks?objectId=${order.id}&status=skipped`);
        return r.body.items.length >= 1 ? r.body.items : undefined;
      },
      15000,
      'skipped delivery',
    );
    expect(list[0]).toMatchObject({ status: 'skipped', attempts: 0, lastError: 'the shop has no callback URL' });
  });

  describe('payouts and P2P transactions', () => {
    let receiver: CallbackReceiver;
    let shop: Shop;

    beforeAll(async () => {
      receiver = await aReceiver();
      shop = await aShopCalling(receiver.url);
    });

    it('when payout status changes are published on payouts.events, then the merchant receives them in sequence with the catalogue description', async () => {
      const payoutId = randomUUID();
      const payload = (sequence: number, status: string, previousStatus: string | null, statusCode: string) => ({
        payoutId,
        shopId: shop.shopId,
        merchantPayoutId: 'po-1',
        sequence,
        status,
        previousStatus,
        statusCode,
        statusDescription: 'producer text',
        cost: { amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' },
      });
      await producer.send({
        topic: stack.prefix + Topics.payoutsEvents,
        messages: [payload(1, 'registered', null, '1-01-01'), payload(2, 'completed', 'registered', '0-01-00')].map(
          (p) => ({
            key: payoutId,
            value: JSON.stringify(envelope({ type: 'payout.status_changed', payload: p, occurredAt: new Date() })),
          }),
        ),
      });
      const got = await untilAccepted(receiver, payoutId, 2);
      expect(
        got.map((c) => [c.json.type, c.json.objectType, c.json.sequence, c.json.status, c.json.merchantPayoutId]),
      ).toEqual([
        ['payout.status_changed', 'payout', 1, 'registered', 'po-1'],
        ['payout.status_changed', 'payout', 2, 'completed', 'po-1'],
      ]);
      expect(got[1].json).toMatchObject({
        ...statusOf('0-01-00'),
        cost: { amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' },
      });
      expect(validSignature(got[1], shop.callbackSecret)).toBe('valid');
    });

    it('when the same event is published twice, then the merchant receives it once; a malformed one is dead-lettered and sends nothing', async () => {
      const payoutId = randomUUID();
      const event = envelope({
        type: 'payout.status_changed',
        payload: {
          payoutId,
          shopId: shop.shopId,
          merchantPayoutId: 'po-dup',
          sequence: 1,
          status: 'registered',
          previousStatus: null,
          cost: { amount: '5.00', currency: 'USD' },
        },
        occurredAt: new Date(),
      });
      const broken = envelope({
        type: 'payout.status_changed',
        payload: { payoutId, shopId: shop.shopId, sequence: 2, status: 'completed' },
        occurredAt: new Date(),
      });
      const reader = await TopicReader.start([stack.prefix + Topics.payoutsEvents + '.dlq']);
      try {
        for (const e of [event, event, broken]) {
          await producer.send({
            topic: stack.prefix + Topics.payoutsEvents,
            messages: [{ key: payoutId, value: JSON.stringify(e) }],
          });
        }
        const [dead] = await reader.waitFor(1, (m) => m.json?.eventId === broken.eventId);
        expect(dead.headers['dlq-error']).toContain('merchantPayoutId');
      } finally {
        await reader.stop();
      }
      await untilAccepted(receiver, payoutId, 1);
      // The merchant's 2xx is recorded right after the exchange: wait for the record, not only the merchant.
      const items = await eventually(
        async () => {
          const list = await ops('GET', `/callbacks?objectId=${payoutId}`);
          return list.body.items.every((d: any) => d.status !== 'pending') ? list.body.items : undefined;
        },
        15000,
        'the delivery recorded',
      );
      expect(items.map((d: any) => [d.eventId, d.status])).toEqual([[event.eventId, 'delivered']]);
      expect(acceptedOf(receiver, payoutId)).toHaveLength(1);
    });

    it('when a P2P status change names its own callback URL, then it goes there', async () => {
      const own = await aReceiver();
      const p2pId = randomUUID();
      await producer.send({
        topic: stack.prefix + Topics.p2pEvents,
        messages: [
          {
            key: p2pId,
            value: JSON.stringify(
              envelope({
                type: 'p2p.status_changed',
                payload: {
                  p2pId,
                  shopId: shop.shopId,
                  merchantP2pId: 'p2p-1',
                  sequence: 1,
                  status: 'failed',
                  previousStatus: 'in_progress',
                  statusCode: '2-07-01',
                  cost: { amount: '10.00', currency: 'USD' },
                  callbackUrl: own.url,
                },
                occurredAt: new Date(),
              }),
            ),
          },
        ],
      });
      const [c] = await untilAccepted(own, p2pId, 1);
      expect(c.json).toMatchObject({
        type: 'p2p.status_changed',
        objectType: 'p2p',
        merchantP2pId: 'p2p-1',
        status: 'failed',
        ...statusOf('2-07-01'),
      });
      expect(of(receiver, p2pId)).toHaveLength(0);
    });
  });

  describe('callback URL validation outside local development', () => {
    let strict: RunningGateway;
    let strictOps: RunningBackoffice;
    let shop: Shop;

    beforeAll(async () => {
      strict = await startGateway(
        loadGatewayConfig(
          stack.env(
            { CALLBACK_URL_ALLOW_INSECURE: 'false', GATEWAY_INSTANCE_ID: uniqueName('gw') },
            { tokenizes: true },
          ),
        ),
        0,
      );
      strictOps = await startBackoffice(loadBackofficeConfig(stack.env({ CALLBACK_URL_ALLOW_INSECURE: 'false' })), 0);
      shop = await aShopCalling(undefined);
    });
    afterAll(async () => {
      await strictOps?.close();
      await strict?.close();
    });

    it.each([
      ['http://merchant.example.com/cb', 'must be an https URL'],
      ['https://127.0.0.1/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://10.0.0.7/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://[fd12::1]/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://localhost/cb', 'must not point at a local host name'],
    ])('when a shop is created with callback URL %s, then it is a 400 naming callbackUrl', async (url, message) => {
      const company = await ops('POST', '/companies', { name: 'Strict Co' }, strictOps.url);
      const res = await ops(
        'POST',
        `/companies/${company.body.id}/shops`,
        { name: 'Strict Shop', callbackUrl: url },
        strictOps.url,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors).toEqual([{ path: 'callbackUrl', message }]);
    });

    it('when shop settings set a private callback URL, then it is a 400 and the settings stay as they were', async () => {
      const res = await ops(
        'PATCH',
        `/shops/${shop.shopId}/settings`,
        { callbackUrl: 'https://192.168.0.10/cb', autoFinalizeNeedAction: true },
        strictOps.url,
      );
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { path: 'callbackUrl', message: 'must not point at a private, loopback, link-local or unique-local address' },
      ]);
      const now = await ops('GET', `/shops/${shop.shopId}/settings`, undefined, strictOps.url);
      expect(now.body).toMatchObject({ callbackUrl: null, autoFinalizeNeedAction: false });
      expect(now.body).not.toHaveProperty('callbackSecret');
    });

    it('when shop settings set a public https callback URL, then it is stored', async () => {
      const res = await ops(
        'PATCH',
        `/shops/${shop.shopId}/settings`,
        { callbackUrl: 'https://merchant.example.com/cb' },
        strictOps.url,
      );
      expect(res.status).toBe(200);
      expect(res.body.callbackUrl).toBe('https://merchant.example.com/cb');
      expect(res.body).not.toHaveProperty('callbackSecret');
    });

    it('when an order names a non-https or private callback URL, then it is a 400 naming callbackUrl and no order is created', async () => {
      const body = anOrderRequest({ amount: '100.99' });
      for (const url of ['http://merchant.example.com/cb', 'https://169.254.169.254/latest']) {
        const res = await http('POST', `${strict.url}/order`, {
          token: shop.apiKey,
          body: { ...body, callbackUrl: url },
        });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'callbackUrl' })]);
      }
      // The same merchantOrderId is still free: the refused requests created nothing.
      const ok = await http('POST', `${strict.url}/order`, {
        token: shop.apiKey,
        body: { ...body, callbackUrl: 'https://merchant.example.com/orders/cb' },
      });
      expect(ok.status).toBe(201);
    });
  });
});
