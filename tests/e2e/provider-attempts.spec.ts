import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { http } from '@payments/testing';
// Not exported by the orders app's index: the tests drive the dispatcher and wrap the real adapter.
import { AttemptDispatcher } from '../../apps/orders/src/dispatch-attempt/attempt-dispatcher.service';
import type {
  PaymentProvider,
  ProviderAnswer,
  StartPaymentRequest,
} from '../../apps/orders/src/dispatch-attempt/payment-provider';
import { SandboxPaymentProvider } from '../../apps/orders/src/dispatch-attempt/sandbox-payment.provider';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import * as providerSupport from '../support/provider';
import { untilStatus } from '../support/wait';

interface Dispatch {
  payment_id: string;
  status: string;
  sends: number;
  last_error: string | null;
  claimed_by: string | null;
  next_attempt_at: Date;
  updated_at: Date;
}

/** What every test here needs of a running stack: create orders, read them, their attempts, events and the sandbox's view. */
function helpers(get: () => { stack: TestStack; shop: TestShop; db: Client }) {
  const gw = () => get().stack.gateway!.url;
  const sandboxUrl = () => get().stack.sandbox!.url;

  async function create(amount: string, currency = 'USD'): Promise<string> {
    const res = await http('POST', `${gw()}/order`, {
      token: get().shop.apiKey,
      body: anOrderRequest({ amount, currency }),
    });
    if (res.status !== 201) throw new Error(`order not created: ${res.status} ${res.text}`);
    expect(res.body.status).toBe('registered');
    return res.body.id as string;
  }

  const read = async (id: string) => (await http('GET', `${gw()}/order/${id}`, { token: get().shop.apiKey })).body;

  const until = (id: string, status: string, timeoutMs?: number) =>
    untilStatus(() => read(id), status, `order ${id} ${status}`, timeoutMs);
  const dispatchOf = (orderId: string) => providerSupport.dispatchOf<Dispatch>(get().db, 'order', orderId);

  /** The order's status changes as they left through the outbox: [sequence, status, statusCode]. */
  async function eventsOf(orderId: string): Promise<[number, string, string][]> {
    const rows = await get().db.query(
      `SELECT envelope->'payload' AS p FROM orders.outbox WHERE key = $1 AND envelope->>'type' = 'order.status_changed' ORDER BY id`,
      [orderId],
    );
    return rows.rows.map((r) => [r.p.sequence, r.p.status, r.p.statusCode]);
  }

  const sandboxPayment = (orderId: string, paymentId: string) =>
    providerSupport.sandboxPayment(sandboxUrl(), 'order', orderId, paymentId);
  /** Waits until the sandbox delivered `count` callbacks for the attempt and orders consumed every one of them. */
  const callbacksApplied = (orderId: string, paymentId: string, count: number) =>
    providerSupport.callbacksApplied(get().db, sandboxUrl(), 'order', orderId, paymentId, count);

  const simulate = (body: Record<string, unknown>) => http('POST', `${sandboxUrl()}/simulate/callback`, { body });

  return { create, read, until, dispatchOf, eventsOf, sandboxPayment, callbacksApplied, simulate };
}

describe('provider attempts: orders sends each attempt to the provider sandbox, off the merchant request', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  const h = helpers(() => ({ stack, shop, db }));

  beforeAll(async () => {
    stack = await TestStack.start();
    shop = await aShop(stack.gateway!.url);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('when an order is created, then its attempt is sent once under our paymentId, the order goes in_progress, and the provider callback completes it', async () => {
    const id = await h.create('10.99'); // .99: the sandbox accepts and lets us send the callback ourselves
    const inProgress = await h.until(id, 'in_progress');
    const dispatch = await h.dispatchOf(id);
    expect(dispatch).toMatchObject({
      status: 'accepted',
      sends: 1,
      payment_id: expect.stringMatching(/^pay_[0-9a-f-]{36}$/),
    });
    const paymentId = dispatch.payment_id;
    expect(inProgress).toMatchObject({
      statusCode: '1-01-02',
      statusDescription: 'Payment is being processed by the provider.',
      data: {
        payments: [
          {
            paymentId,
            provider: 'sandbox',
            status: 'pending',
            amount: '10.99',
            currency: 'USD',
            statusCode: '1-01-02',
            statusDescription: 'Payment is being processed by the provider.',
          },
        ],
      },
    });
    expect(await h.sandboxPayment(id, paymentId)).toMatchObject({
      reference: id,
      paymentId,
      amount: '10.99',
      currency: 'USD',
      scenario: 'no_callback',
      requests: 1,
      callbacks: [],
    });

    const sim = await h.simulate({ reference: id, paymentId, status: 'success', amount: '10.99', currency: 'USD' });
    expect(sim.body).toMatchObject({ delivered: true });
    const done = await h.until(id, 'completed');
    expect(done).toMatchObject({ statusCode: '0-01-00', statusDescription: 'Operation completed successfully.' });
    expect(done.data.payments).toEqual([
      expect.objectContaining({
        paymentId,
        provider: 'sandbox',
        status: 'success',
        amount: '10.99',
        statusCode: '0-01-00',
        statusDescription: 'Operation completed successfully.',
      }),
    ]);
    expect(await h.eventsOf(id)).toEqual([
      [1, 'registered', '1-01-01'],
      [2, 'in_progress', '1-01-02'],
      [3, 'completed', '0-01-00'],
    ]);
  });

  it('when the provider calls back without naming our paymentId, then the callback completes the attempt we sent, not a second one', async () => {
    const id = await h.create('12.99');
    await h.until(id, 'in_progress');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    const sim = await h.simulate({ reference: id, status: 'success', amount: '12.99', currency: 'USD' });
    expect(sim.body).toMatchObject({ delivered: true });
    const done = await h.until(id, 'completed');
    expect(done.data.payments).toEqual([
      expect.objectContaining({ paymentId, status: 'success', statusCode: '0-01-00' }),
    ]);
  });

  it('when the sandbox plays its default scenario, then the order completes by itself, with one attempt and one completion', async () => {
    const id = await h.create('25.00');
    const done = await h.until(id, 'completed');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    expect(done.data.payments).toEqual([
      expect.objectContaining({
        paymentId,
        status: 'success',
        statusCode: '0-01-00',
        statusDescription: expect.any(String),
      }),
    ]);
    expect(await h.sandboxPayment(id, paymentId)).toMatchObject({ scenario: 'success', requests: 1 });
    await h.callbacksApplied(id, paymentId, 1);
    const events = await h.eventsOf(id);
    // The callback may overtake our recording of the accepted attempt: in_progress is then skipped.
    expect([
      ['registered', 'in_progress', 'completed'],
      ['registered', 'completed'],
    ]).toContainEqual(events.map((e) => e[1]));
    expect(events.map((e) => e[0])).toEqual(events.map((_e, i) => i + 1));
  });

  it('when the provider declines (.13), then the order fails with 2-07-01 and so does its attempt', async () => {
    const id = await h.create('42.13');
    const failed = await h.until(id, 'failed');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    expect(failed).toMatchObject({ statusCode: '2-07-01', statusDescription: 'Payment declined by the provider.' });
    expect(failed.data.payments).toEqual([
      expect.objectContaining({
        paymentId,
        status: 'failed',
        statusCode: '2-07-01',
        statusDescription: 'Payment declined by the provider.',
      }),
    ]);
  });

  it('when the provider answers only after our timeout (.31), then the order needs action with 1-07-02, is never sent again, and the late callback completes it', async () => {
    const id = await h.create('12.31');
    const done = await h.until(id, 'completed');
    const dispatch = await h.dispatchOf(id);
    expect(dispatch).toMatchObject({
      status: 'timed_out',
      sends: 1,
      last_error: expect.stringContaining('no answer within 8000 ms'),
    });
    expect(await h.eventsOf(id)).toEqual([
      [1, 'registered', '1-01-01'],
      [2, 'need_action', '1-07-02'],
      [3, 'completed', '0-01-00'],
    ]);
    expect(done).toMatchObject({ statusCode: '0-01-00' });
    expect(done.data.payments).toEqual([
      expect.objectContaining({ paymentId: dispatch.payment_id, status: 'success', statusCode: '0-01-00' }),
    ]);
    expect(await h.sandboxPayment(id, dispatch.payment_id)).toMatchObject({ scenario: 'slow', requests: 1 });
  });

  it('when the success callback comes three times (.41), then the order completes once', async () => {
    const id = await h.create('7.41');
    await h.until(id, 'completed');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    const sent = await h.callbacksApplied(id, paymentId, 3);
    // The second is a delivery retry (same eventId), stored once by callbacks-ingest; the third a new notification.
    expect(sent.map((c) => JSON.parse(c.responseBody).duplicate)).toEqual([false, true, false]);
    const events = await h.eventsOf(id);
    expect(events.filter((e) => e[1] === 'completed')).toHaveLength(1);
    expect(events[events.length - 1][1]).toBe('completed');
    const row = await db.query('SELECT sequence FROM orders.orders WHERE id = $1', [id]);
    expect(row.rows[0].sequence).toBe(events[events.length - 1][0]);
    expect((await h.read(id)).data.payments).toEqual([
      expect.objectContaining({ paymentId, status: 'success', statusCode: '0-01-00' }),
    ]);
  });

  it('when a stale pending callback follows the success (.42), then the order stays completed', async () => {
    const id = await h.create('8.42');
    await h.until(id, 'completed');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    const sent = await h.callbacksApplied(id, paymentId, 2);
    expect(sent.map((c) => c.status)).toEqual(['success', 'pending']);
    const order = await h.read(id);
    expect(order).toMatchObject({ status: 'completed', statusCode: '0-01-00' });
    expect(order.data.payments).toEqual([
      expect.objectContaining({ paymentId, status: 'success', statusCode: '0-01-00' }),
    ]);
    expect((await h.eventsOf(id)).pop()).toEqual([expect.any(Number), 'completed', '0-01-00']);
  });

  it.each([
    ['10 % less (.21)', '100.21', { amount: '90.18', currency: 'USD' }],
    ['another currency (.22)', '100.22', { amount: '100.22', currency: 'EUR' }],
  ])(
    'when the provider reports %s, then the order needs action with 2-07-04 and the attempt shows what was reported',
    async (_what, amount, reported) => {
      const id = await h.create(amount);
      const waiting = await h.until(id, 'need_action');
      const { payment_id: paymentId } = await h.dispatchOf(id);
      expect(waiting).toMatchObject({
        statusCode: '2-07-04',
        statusDescription: expect.stringContaining('action is needed'),
      });
      expect(waiting.data.payments).toEqual([
        expect.objectContaining({ paymentId, status: 'success', statusCode: '2-07-04', ...reported }),
      ]);
    },
  );

  it('when the sandbox is asked twice for the same (reference, paymentId), then it answers the same and plays the scenario once; other terms are a conflict', async () => {
    const reference = randomUUID();
    const body = { reference, paymentId: `pay_${randomUUID()}`, amount: '5.99', currency: 'USD' };
    const first = await http('POST', `${stack.sandbox!.url}/payments`, { body });
    const again = await http('POST', `${stack.sandbox!.url}/payments`, { body });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(first.body).toMatchObject({
      paymentId: body.paymentId,
      status: 'pending',
      scenario: 'no_callback',
      providerPaymentId: expect.stringMatching(/^sbx_/),
    });
    expect(await h.sandboxPayment(reference, body.paymentId)).toMatchObject({ requests: 2, callbacks: [] });
    const other = await http('POST', `${stack.sandbox!.url}/payments`, { body: { ...body, amount: '6.99' } });
    expect(other.status).toBe(409);
    expect(other.body.type).toBe('/problems/conflict');
  });

  it('when two orders instances dispatch at once, then each order is sent exactly once', async () => {
    await stack.startOrders();
    const ids = await Promise.all(Array.from({ length: 16 }, (_x, i) => h.create(`${i + 1}.99`)));
    for (const id of ids) await h.until(id, 'in_progress');
    const rows = (
      await db.query(
        'SELECT order_id, status, sends, claimed_by FROM orders.provider_dispatches WHERE order_id = ANY($1::uuid[])',
        [ids],
      )
    ).rows;
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'accepted', sends: 1 });
      const dispatch = await h.dispatchOf(row.order_id);
      expect(await h.sandboxPayment(row.order_id, dispatch.payment_id)).toMatchObject({ requests: 1 });
      expect(await h.eventsOf(row.order_id)).toEqual([
        [1, 'registered', '1-01-01'],
        [2, 'in_progress', '1-01-02'],
      ]);
    }
  });
});

describe('provider attempts, with the dispatcher driven by the test (rounds on demand, a clock it moves)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let dispatcher: AttemptDispatcher;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  /** The adapter each test puts behind the dispatcher. */
  let provider: PaymentProvider;
  const h = helpers(() => ({ stack, shop, db }));

  beforeAll(async () => {
    stack = await TestStack.start({
      orders: {
        clock,
        dispatch: {
          autoStart: false,
          provider: { code: 'sandbox', startPayment: (r, o) => provider.startPayment(r, o) },
        },
      },
      extraEnv: { PROVIDER_MAX_ATTEMPTS: '3', PROVIDER_RETRY_BACKOFF_MS: '60000', ORDERS_SWEEP_INTERVAL_MS: '0' },
    });
    shop = await aShop(stack.gateway!.url);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    dispatcher = stack.orders![0].app.get(AttemptDispatcher);
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('when the provider refuses connections, then the attempt is sent again with backoff, and after the last send the order fails with 2-01-01', async () => {
    provider = new SandboxPaymentProvider(`http://127.0.0.1:${await providerSupport.closedPort()}`);
    const id = await h.create('30.00');

    await dispatcher.dispatchDue();
    let dispatch = await h.dispatchOf(id);
    expect(dispatch).toMatchObject({
      status: 'pending',
      sends: 1,
      last_error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(dispatch.next_attempt_at.getTime() - dispatch.updated_at.getTime()).toBe(60_000);
    expect((await h.read(id)).status).toBe('registered');
    await dispatcher.dispatchDue(); // not due yet
    expect((await h.dispatchOf(id)).sends).toBe(1);

    offsetMs += 61_000;
    await dispatcher.dispatchDue();
    dispatch = await h.dispatchOf(id);
    expect(dispatch).toMatchObject({ status: 'pending', sends: 2 });
    expect(dispatch.next_attempt_at.getTime() - dispatch.updated_at.getTime()).toBe(120_000);

    offsetMs += 121_000;
    await dispatcher.dispatchDue();
    expect(await h.dispatchOf(id)).toMatchObject({ status: 'gave_up', sends: 3 });
    const failed = await h.read(id);
    expect(failed).toMatchObject({
      status: 'failed',
      statusCode: '2-01-01',
      statusDescription: 'The provider is temporarily unavailable.',
    });
    expect(failed.data.payments).toEqual([
      expect.objectContaining({
        paymentId: dispatch.payment_id,
        status: 'failed',
        statusCode: '2-01-01',
        statusDescription: 'The provider is temporarily unavailable.',
      }),
    ]);
    expect(await h.eventsOf(id)).toEqual([
      [1, 'registered', '1-01-01'],
      [2, 'failed', '2-01-01'],
    ]);
  });

  it("when the provider's callback completes the order before we record the accepted attempt, then the order stays completed and the attempt is recorded once", async () => {
    const sandbox = new SandboxPaymentProvider(stack.sandbox!.url);
    provider = {
      code: 'sandbox',
      async startPayment(req: StartPaymentRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
        const answer = await sandbox.startPayment(req, opts);
        await h.simulate({
          reference: req.orderId,
          paymentId: req.paymentId,
          status: 'success',
          amount: req.amount,
          currency: req.currency,
        });
        await h.until(req.orderId, 'completed');
        return answer;
      },
    };
    const id = await h.create('40.99');
    await dispatcher.dispatchDue();
    const dispatch = await h.dispatchOf(id);
    expect(dispatch).toMatchObject({ status: 'accepted', sends: 1 });
    const order = await h.read(id);
    expect(order).toMatchObject({ status: 'completed', statusCode: '0-01-00' });
    expect(order.data.payments).toEqual([
      expect.objectContaining({ paymentId: dispatch.payment_id, status: 'success', statusCode: '0-01-00' }),
    ]);
    expect(await h.eventsOf(id)).toEqual([
      [1, 'registered', '1-01-01'],
      [2, 'completed', '0-01-00'],
    ]);
  });

  it('when the provider answers 409 "payment id exists", then the outcome is unknown: need_action 1-07-02, never sent again, and its callback resolves it', async () => {
    provider = new SandboxPaymentProvider(stack.sandbox!.url);
    const id = await h.create('60.99');
    const { payment_id: paymentId } = await h.dispatchOf(id);
    // The sandbox already knows this paymentId with other terms: it answers 409 Conflict (decision 343).
    expect(
      (
        await http('POST', `${stack.sandbox!.url}/payments`, {
          body: { reference: id, paymentId, amount: '1.99', currency: 'USD' },
        })
      ).status,
    ).toBe(202);
    await dispatcher.dispatchDue();
    expect(await h.dispatchOf(id)).toMatchObject({
      status: 'timed_out',
      sends: 1,
      last_error: expect.stringContaining('HTTP 409'),
    });
    const waiting = await h.read(id);
    expect(waiting).toMatchObject({ status: 'need_action', statusCode: '1-07-02' });
    expect(waiting.data.payments).toEqual([
      expect.objectContaining({ paymentId, status: 'pending', statusCode: '1-07-02' }),
    ]);
    // The provider's own report on that payment id settles it, as after a timeout.
    await h.simulate({ reference: id, paymentId, status: 'success', amount: '60.99', currency: 'USD' });
    expect(await h.until(id, 'completed')).toMatchObject({ statusCode: '0-01-00' });
  });

  it('when the order was moved on before its attempt was sent, then the attempt is not sent', async () => {
    const calls: StartPaymentRequest[] = [];
    provider = {
      code: 'sandbox',
      async startPayment(req) {
        calls.push(req);
        return { kind: 'accepted' };
      },
    };
    const id = await h.create('50.99');
    await h.simulate({
      reference: id,
      paymentId: 'paid-elsewhere',
      status: 'success',
      amount: '50.99',
      currency: 'USD',
    });
    await h.until(id, 'completed');
    await dispatcher.dispatchDue();
    expect(calls.filter((c) => c.orderId === id)).toEqual([]);
    expect(await h.dispatchOf(id)).toMatchObject({
      status: 'skipped',
      sends: 1,
      last_error: expect.stringContaining('completed'),
    });
    expect((await h.read(id)).data.payments).toEqual([
      expect.objectContaining({ paymentId: 'paid-elsewhere', status: 'success' }),
    ]);
  });
});
