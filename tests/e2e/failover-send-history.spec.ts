import { Client } from 'pg';
import { http } from '@payments/testing';
// Not exported by the orders app's index: the tests drive the dispatcher with adapters of their own.
import { AttemptDispatcher } from '../../apps/orders/src/dispatch-attempt/attempt-dispatcher.service';
import type {
  PaymentProvider,
  ProviderAnswer,
  StartPaymentRequest,
} from '../../apps/orders/src/dispatch-attempt/payment-provider';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';

const UNAVAILABLE: ProviderAnswer = { kind: 'unavailable', reason: 'HTTP 503: unavailable', notSent: true };
const BAD_GATEWAY: ProviderAnswer = { kind: 'unavailable', reason: 'HTTP 502: bad gateway' };
const DECLINED: ProviderAnswer = { kind: 'refused', reason: 'HTTP 422: declined', statusCode: '2-07-01' };

/** A provider that answers what the test scripted for it, in order, and keeps what it was asked. */
class ScriptedProvider implements PaymentProvider {
  readonly calls: StartPaymentRequest[] = [];
  script: ProviderAnswer[] = [];
  constructor(readonly code: string) {}
  async startPayment(request: StartPaymentRequest): Promise<ProviderAnswer> {
    this.calls.push(request);
    const answer = this.script.shift();
    if (!answer) throw new Error(`${this.code}: no answer scripted for ${request.paymentId}`);
    return answer;
  }
}

/**
 * Decision 343: a failover is decided on every send of the order, not on the last one. A card
 * attempt never goes to the next provider of its route when an earlier send of it may have reached
 * its provider (a 502 before the 503s, a send whose answer was never recorded), nor when another
 * attempt of the order may have the money (its provider reported it pending). The order then ends
 * as without a next provider, and no other provider is ever asked.
 */
describe('failover looks at every send of the order (decision 343)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let dispatcher: AttemptDispatcher;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const a = new ScriptedProvider('sandbox');
  const b = new ScriptedProvider('sandbox-b');
  const c = new ScriptedProvider('sandbox-c');

  beforeAll(async () => {
    stack = await TestStack.start({
      orders: { clock, dispatch: { autoStart: false, provider: a, providers: [b, c] } },
      extraEnv: {
        PROVIDER_MAX_ATTEMPTS: '3',
        PROVIDER_RETRY_BACKOFF_MS: '1000',
        ORDERS_SWEEP_INTERVAL_MS: '0',
        ORDERS_SHOP_SETTINGS_CACHE_MS: '0',
      },
    });
    shop = await aShop(stack.gateway!.url, 'Failover History Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    dispatcher = stack.orders![0].app.get(AttemptDispatcher);
    // Straight into orders' table: the route's third provider exists only in this test.
    await db.query(
      `INSERT INTO orders.shop_routes (shop_id, method, providers, updated_at, updated_by)
       VALUES ($1, 'card', $2::jsonb, now(), '{"id":"test","name":"test","role":"admin"}'::jsonb)`,
      [shop.shopId, JSON.stringify([{ provider: 'sandbox' }, { provider: 'sandbox-b' }, { provider: 'sandbox-c' }])],
    );
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  beforeEach(() => {
    for (const p of [a, b, c]) {
      p.calls.length = 0;
      p.script = [];
    }
  });

  async function aCardOrder(amount: string): Promise<string> {
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount, extra: { instrumentType: 'card' } }),
    });
    if (res.status !== 201) throw new Error(`order not created: ${res.status} ${res.text}`);
    return res.body.id as string;
  }
  const read = async (id: string) =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;
  const dispatches = async (id: string) =>
    (
      await db.query(
        'SELECT payment_id, provider, status, sends FROM orders.provider_dispatches WHERE order_id = $1 ORDER BY created_at, payment_id',
        [id],
      )
    ).rows;
  /** One dispatcher round, after every backoff has run out. */
  async function round(): Promise<void> {
    offsetMs += 10 * 60_000;
    await dispatcher.dispatchDue();
  }

  it('when every send of A provably took nothing, then the attempt fails over to B (the rule still works)', async () => {
    a.script = [UNAVAILABLE, UNAVAILABLE, UNAVAILABLE];
    b.script = [{ kind: 'accepted' }];
    const id = await aCardOrder('10.00');
    for (let i = 0; i < 4; i += 1) await round();
    expect((await dispatches(id)).map((d) => [d.provider, d.status])).toEqual([
      ['sandbox', 'gave_up'],
      ['sandbox-b', 'accepted'],
    ]);
    expect((await read(id)).status).toBe('in_progress');
  });

  it('when an earlier send of A answered 502 and only the last 503, then no failover: the order fails 2-01-01 and B is never asked', async () => {
    a.script = [BAD_GATEWAY, UNAVAILABLE, UNAVAILABLE];
    const id = await aCardOrder('11.00');
    for (let i = 0; i < 4; i += 1) await round();
    expect(a.calls).toHaveLength(3);
    expect(b.calls).toHaveLength(0);
    expect((await dispatches(id)).map((d) => [d.provider, d.status, d.sends])).toEqual([['sandbox', 'gave_up', 3]]);
    const failed = await read(id);
    expect(failed).toMatchObject({ status: 'failed', statusCode: '2-01-01' });
    expect(failed.data.payments).toEqual([
      expect.objectContaining({ provider: 'sandbox', status: 'failed', statusCode: '2-01-01' }),
    ]);
  });

  it('when a send of A was never recorded (a crash between send and record), then no failover even though the last send is a 503', async () => {
    a.script = [UNAVAILABLE, UNAVAILABLE];
    const id = await aCardOrder('12.00');
    await round();
    // A claim that sent and died before recording: `sends` counts it, no answer was kept.
    await db.query(`UPDATE orders.provider_dispatches SET sends = sends + 1 WHERE order_id = $1`, [id]);
    await round();
    expect(a.calls).toHaveLength(2);
    expect(b.calls).toHaveLength(0);
    expect((await dispatches(id)).map((d) => [d.provider, d.status, d.sends])).toEqual([['sandbox', 'gave_up', 3]]);
    expect(await read(id)).toMatchObject({ status: 'failed', statusCode: '2-01-01' });
  });

  it('when A’s replaced attempt is reported pending by A and B declines, then no failover to C: the order fails 2-07-01', async () => {
    a.script = [DECLINED];
    b.script = [DECLINED];
    const id = await aCardOrder('13.00');
    await round();
    const [first] = await dispatches(id);
    expect(first).toMatchObject({ provider: 'sandbox', status: 'refused' });
    // A's late report that it has the payment after all (a callback's `pending` on the replaced attempt).
    await db.query(
      `UPDATE orders.payment_attempts SET status = 'pending', status_code = '1-01-02' WHERE order_id = $1 AND payment_id = $2`,
      [id, first.payment_id],
    );
    await round();
    expect(b.calls).toHaveLength(1);
    expect(c.calls).toHaveLength(0);
    expect((await dispatches(id)).map((d) => [d.provider, d.status])).toEqual([
      ['sandbox', 'refused'],
      ['sandbox-b', 'refused'],
    ]);
    expect(await read(id)).toMatchObject({ status: 'failed', statusCode: '2-07-01' });
  });

  it('when A and B both provably declined, then the order goes on to C (every send clean)', async () => {
    a.script = [DECLINED];
    b.script = [DECLINED];
    c.script = [{ kind: 'accepted' }];
    const id = await aCardOrder('14.00');
    for (let i = 0; i < 3; i += 1) await round();
    expect((await dispatches(id)).map((d) => [d.provider, d.status])).toEqual([
      ['sandbox', 'refused'],
      ['sandbox-b', 'refused'],
      ['sandbox-c', 'accepted'],
    ]);
    expect((await read(id)).status).toBe('in_progress');
  });
});
