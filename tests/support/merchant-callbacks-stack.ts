// Shared set-up of the merchant callbacks e2e specs (merchant-callbacks*.spec.ts): the running
// services (gateway, orders, callbacks-ingest, the sandbox, merchant-callbacks) with few delivery
// slots, a producer, HTTP receivers, and helpers to make shops and orders and pay them.
//
// Amounts end in .99: the sandbox accepts such payments (in_progress) and never calls back, so
// tests send the provider's success callback themselves.
import { Client } from 'pg';
import { Producer } from 'kafkajs';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { verifySignature } from '@payments/callback-signature';
import { eventually, http, testKafka } from '@payments/testing';
import { CallbackReceiver, ReceivedCallback } from './callback-receiver';
import { anOrder as createOrder } from './merchant';
import { sandboxPaid } from './provider';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from './stack';

export interface Shop {
  shopId: string;
  apiKey: string;
  callbackSecret: string;
}

/** Registers beforeAll/afterAll in the calling describe and returns its helpers; started() gives
 *  what beforeAll set up, to be read in the caller's own beforeAll. */
export function merchantCallbacksStack() {
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
    const providerEventId = await sandboxPaid(stack.ingest!.url, orderId);
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

  return {
    started: () => ({ stack, db, producer }),
    gw,
    ops,
    aReceiver,
    aShopCalling,
    anOrder,
    paid,
    of,
    acceptedOf,
    untilAccepted,
    validSignature,
  };
}
