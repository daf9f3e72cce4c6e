import { Client } from 'pg';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { ProcessingTimeoutSweeper } from '@payments/apps/orders';
import { eventually, http, TopicReader } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aPayoutRequest, payoutsOf, withPayoutMethods } from '../support/transfers';
import * as provider from '../support/provider';
import * as wait from '../support/wait';

/**
 * Payouts through the running services: gateway → payouts.commands → payouts, which sends each
 * payout to the provider sandbox off the merchant's request; the sandbox's signed callbacks come
 * back through callbacks-ingest and provider.events and fold into the payout; every status change
 * leaves on payouts.events through the outbox. What a request must carry to be taken at all
 * (currency, method, payee, bad input): payout-requests.spec.ts.
 */
describe('payouts: from the merchant request to the provider callback and the final status', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  let events: TopicReader;

  beforeAll(async () => {
    stack = await TestStack.start({ extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '0' } });
    [shop, other] = [await aShop(stack.gateway!.url), await aShop(stack.gateway!.url, 'Other Shop')];
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    await withPayoutMethods(stack.gateway!.url, other.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    events = await TopicReader.start([`${stack.prefix}payouts.events`]);
  });

  afterAll(async () => {
    await events?.stop();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const { get, create, until } = payoutsOf(gw, () => shop);
  const dispatchOf = (payoutId: string) => provider.dispatchOf(db, 'payout', payoutId);
  const sandboxPayment = (payoutId: string, dispatchId: string) =>
    provider.sandboxPayment(stack.sandbox!.url, 'payout', payoutId, dispatchId);
  const published = (payoutId: string) => wait.published(events, `${stack.prefix}payouts.events`, payoutId);
  const publishedCount = (payoutId: string, n: number) =>
    wait.publishedCount(events, `${stack.prefix}payouts.events`, payoutId, n);
  /** Waits until the sandbox delivered `count` callbacks and payouts consumed every one of them. */
  const callbacksApplied = (payoutId: string, dispatchId: string, count: number) =>
    provider.callbacksApplied(db, stack.sandbox!.url, 'payout', payoutId, dispatchId, count);

  const simulate = (body: Record<string, unknown>) =>
    http('POST', `${stack.sandbox!.url}/simulate/callback`, { body: { kind: 'payout', ...body } });

  it('when a payout is requested, then it is registered, sent to the provider once, and the provider callback completes it, with events 1..3 on payouts.events', async () => {
    const created = await create({ amount: '120.99', extra: { callbackUrl: 'https://shop.example/payout-callbacks' } });
    expect(created).toMatchObject({
      status: 'registered',
      statusCode: '1-01-03',
      statusDescription: 'Payout registered; awaiting sending to the provider.',
      payout: { method: 'uzcard-payout', cost: { amount: '120.99', currency: 'USD' }, description: 'test payout' },
      instrumentType: 'card',
      payee: { cardNumber: '860012******9012', cardHolder: 'JANE DOE' },
      callbackUrl: 'https://shop.example/payout-callbacks',
    });
    const inProgress = await until(created.id, 'in_progress');
    expect(inProgress).toMatchObject({
      statusCode: '1-01-04',
      statusDescription: 'Payout is being processed by the provider.',
    });
    const dispatch = await dispatchOf(created.id);
    expect(dispatch).toMatchObject({
      status: 'accepted',
      sends: 1,
      dispatch_id: expect.stringMatching(/^pout_[0-9a-f-]{36}$/),
    });
    expect(await sandboxPayment(created.id, dispatch.dispatch_id)).toMatchObject({
      kind: 'payout',
      reference: created.id,
      amount: '120.99',
      currency: 'USD',
      scenario: 'no_callback',
      requests: 1,
    });

    const sim = await simulate({
      reference: created.id,
      paymentId: dispatch.dispatch_id,
      status: 'success',
      amount: '120.99',
      currency: 'USD',
    });
    expect(sim.body).toMatchObject({ delivered: true });
    const done = await until(created.id, 'completed');
    expect(done).toMatchObject({
      statusCode: '0-01-00',
      statusDescription: 'Operation completed successfully.',
      payout: { merchantPayoutId: created.payout.merchantPayoutId },
    });

    const sent = await publishedCount(created.id, 3);
    expect(sent.map((e) => e.type)).toEqual([
      'payout.status_changed',
      'payout.status_changed',
      'payout.status_changed',
    ]);
    expect(
      sent.map((e) => [e.payload.sequence, e.payload.previousStatus, e.payload.status, e.payload.statusCode]),
    ).toEqual([
      [1, null, 'registered', '1-01-03'],
      [2, 'registered', 'in_progress', '1-01-04'],
      [3, 'in_progress', 'completed', '0-01-00'],
    ]);
    expect(sent[2].payload).toEqual({
      payoutId: created.id,
      shopId: shop.shopId,
      merchantPayoutId: created.payout.merchantPayoutId,
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      statusCode: '0-01-00',
      statusDescription: 'Operation completed successfully.',
      cost: { amount: '120.99', currency: 'USD' },
      callbackUrl: 'https://shop.example/payout-callbacks',
    });
  });

  it('when the sandbox plays its default scenario, then the payout completes by itself', async () => {
    const created = await create({ amount: '75.00' });
    await until(created.id, 'completed');
    const { dispatch_id } = await dispatchOf(created.id);
    await callbacksApplied(created.id, dispatch_id, 1);
    expect((await publishedCount(created.id, 3)).map((e) => e.payload.status)).toEqual([
      'registered',
      'in_progress',
      'completed',
    ]);
  });

  it('when the provider declines (.13), then the payout fails with 2-07-05', async () => {
    const created = await create({ amount: '10.13' });
    const failed = await until(created.id, 'failed');
    expect(failed).toMatchObject({ statusCode: '2-07-05', statusDescription: 'Payout declined by the provider.' });
  });

  it('when the provider repeats its success callback (.41), then the payout completes once: one completion event', async () => {
    const created = await create({ amount: '20.41' });
    await until(created.id, 'completed');
    const { dispatch_id } = await dispatchOf(created.id);
    await callbacksApplied(created.id, dispatch_id, 3);
    expect(published(created.id).map((e) => e.payload.status)).toEqual(['registered', 'in_progress', 'completed']);
    const row = (await db.query('SELECT sequence FROM payouts.payouts WHERE id = $1', [created.id])).rows[0];
    expect(row.sequence).toBe(3);
  });

  it('when a stale pending follows the success (.42), then the payout stays completed', async () => {
    const created = await create({ amount: '20.42' });
    await until(created.id, 'completed');
    const { dispatch_id } = await dispatchOf(created.id);
    await callbacksApplied(created.id, dispatch_id, 2);
    expect((await get(created.id)).body.status).toBe('completed');
    expect(published(created.id).map((e) => e.payload.status)).toEqual(['registered', 'in_progress', 'completed']);
  });

  it('when the provider does not answer in time (.31), then the payout needs action with 1-07-05, is never sent again, and the late callback completes it', async () => {
    const created = await create({ amount: '30.31' });
    const waiting = await until(created.id, 'need_action');
    expect(waiting).toMatchObject({
      statusCode: '1-07-05',
      statusDescription: expect.stringContaining('did not answer in time'),
    });
    expect(await dispatchOf(created.id)).toMatchObject({ status: 'timed_out', sends: 1 });
    const done = await until(created.id, 'completed');
    expect(done.statusCode).toBe('0-01-00');
    expect((await dispatchOf(created.id)).sends).toBe(1);
  });

  it('when the provider reports another amount (.21), then the payout needs action 2-07-04 and a follow-up with the right amount does not settle it', async () => {
    const created = await create({ amount: '100.21' });
    const waiting = await until(created.id, 'need_action');
    expect(waiting).toMatchObject({
      statusCode: '2-07-04',
      payout: { cost: { amount: '100.21' }, reportedCost: { amount: '90.18', currency: 'USD' } },
    });
    const { dispatch_id } = await dispatchOf(created.id);
    const followUp = await simulate({
      reference: created.id,
      paymentId: dispatch_id,
      status: 'success',
      amount: '100.21',
      currency: 'USD',
      eventId: `fu-${created.id}`,
    });
    expect(followUp.body).toMatchObject({ delivered: true });
    const id = callbackEventId('sandbox', `fu-${created.id}`);
    await eventually(
      async () =>
        (await db.query('SELECT 1 FROM payouts.inbox WHERE event_id = $1', [id])).rowCount === 1 ? true : undefined,
      15000,
      'follow-up consumed',
    );
    expect((await get(created.id)).body).toMatchObject({ status: 'need_action', statusCode: '2-07-04' });

    // Only an operator who checked with the provider settles it; a merchant key cannot.
    const resolveUrl = `${opsUrlOf(gw())}/ops/v1/payouts/${created.id}/resolve`;
    expect((await http('POST', resolveUrl, { token: shop.apiKey, body: { action: 'complete' } })).status).toBe(401);
    const resolved = await http('POST', resolveUrl, {
      token: TEST_OPS_TOKEN,
      body: { action: 'complete', note: 'provider confirmed 90.18 USD paid' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      status: 'completed',
      statusCode: '1-07-06',
      statusDescription: expect.stringContaining('operator'),
    });
    const audit = await http('GET', `${opsUrlOf(gw())}/ops/v1/audit?action=payout.resolve&objectId=${created.id}`, {
      token: TEST_OPS_TOKEN,
    });
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        reason: 'provider confirmed 90.18 USD paid',
        before: expect.objectContaining({ id: created.id, status: 'need_action', statusCode: '2-07-04' }),
        after: expect.objectContaining({ id: created.id, status: 'completed', statusCode: '1-07-06' }),
      }),
    ]);
    // The operator of the payout.resolve, on the service's own row (decision 301).
    const row = await db.query('SELECT resolved_by FROM payouts.payouts WHERE id = $1', [created.id]);
    expect(row.rows[0].resolved_by).toEqual({ id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' });
    const again = await http('POST', resolveUrl, { token: TEST_OPS_TOKEN, body: { action: 'fail' } });
    expect(again.status).toBe(409);
    expect(again.body.currentStatus).toBe('completed');
    expect(
      (await publishedCount(created.id, 4)).map((e) => [e.payload.sequence, e.payload.status, e.payload.statusCode]),
    ).toEqual([
      [1, 'registered', '1-01-03'],
      [2, 'in_progress', '1-01-04'],
      [3, 'need_action', '2-07-04'],
      [4, 'completed', '1-07-06'],
    ]);
  });

  it('when the provider reports another currency (.22), then the payout needs action 2-07-04', async () => {
    const created = await create({ amount: '100.22' });
    expect(await until(created.id, 'need_action')).toMatchObject({
      statusCode: '2-07-04',
      payout: { reportedCost: { currency: 'EUR' } },
    });
    const failed = await http('POST', `${opsUrlOf(gw())}/ops/v1/payouts/${created.id}/resolve`, {
      token: TEST_OPS_TOKEN,
      body: { action: 'fail' },
    });
    expect(failed.body).toMatchObject({ status: 'failed', statusCode: '1-07-07' });
  });

  it('when an operator resolves a payout that is not in need_action, or an unknown one, then 409 with its status, or 404', async () => {
    const created = await create({ amount: '41.99' });
    await until(created.id, 'in_progress');
    const res = await http('POST', `${opsUrlOf(gw())}/ops/v1/payouts/${created.id}/resolve`, {
      token: TEST_OPS_TOKEN,
      body: { action: 'fail' },
    });
    expect(res.status).toBe(409);
    expect(res.body.currentStatus).toBe('in_progress');
    expect((await get(created.id)).body.status).toBe('in_progress');
    const unknown = await http(
      'POST',
      `${opsUrlOf(gw())}/ops/v1/payouts/00000000-0000-4000-8000-000000000000/resolve`,
      {
        token: TEST_OPS_TOKEN,
        body: { action: 'fail' },
      },
    );
    expect(unknown.status).toBe(404);
  });

  it('when a payout is older than the orders processing timeout, then it is still open: no processing timeout applies to payouts', async () => {
    const created = await create({ amount: '40.99' });
    await until(created.id, 'in_progress');
    await db.query(
      `UPDATE payouts.payouts SET created_at = now() - interval '400 days', updated_at = now() - interval '400 days' WHERE id = $1`,
      [created.id],
    );
    // The only timeout in the system is the orders' sweeper; run it as if a year had passed.
    const sweeper = stack.orders![0].app.get(ProcessingTimeoutSweeper);
    await sweeper.sweep(new Date(Date.now() + 400 * 24 * 3600 * 1000));
    expect((await get(created.id)).body).toMatchObject({ status: 'in_progress', statusCode: '1-01-04' });
    expect(published(created.id).map((e) => e.payload.status)).not.toContain('failed');
  });
});

describe('payouts, with the dispatcher driven by the test (rounds on demand, a clock it moves)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'methods', 'payouts'],
      payouts: { clock, dispatch: { autoStart: false } },
      extraEnv: {
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${await provider.closedPort()}`,
        PROVIDER_MAX_ATTEMPTS: '2',
        PROVIDER_RETRY_BACKOFF_MS: '60000',
      },
    });
    shop = await aShop(stack.gateway!.url);
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('when the provider refuses connections, then the payout is sent again after the backoff, and after the last send it fails with 2-01-01', async () => {
    const res = await http('POST', `${stack.gateway!.url}/payouts`, {
      token: shop.apiKey,
      body: aPayoutRequest({ amount: '33.99' }),
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const dispatcher = stack.payouts!.dispatcher;
    const row = async () =>
      (await db.query('SELECT status, sends, last_error FROM payouts.provider_dispatches WHERE payout_id = $1', [id]))
        .rows[0];

    await dispatcher.dispatchDue();
    expect(await row()).toMatchObject({
      status: 'pending',
      sends: 1,
      last_error: expect.stringContaining('ECONNREFUSED'),
    });
    await dispatcher.dispatchDue(); // not due before the backoff
    expect((await row()).sends).toBe(1);
    expect((await http('GET', `${stack.gateway!.url}/payouts/${id}`, { token: shop.apiKey })).body.status).toBe(
      'registered',
    );

    offsetMs += 61_000;
    await dispatcher.dispatchDue();
    expect(await row()).toMatchObject({ status: 'gave_up', sends: 2 });
    const failed = (await http('GET', `${stack.gateway!.url}/payouts/${id}`, { token: shop.apiKey })).body;
    expect(failed).toMatchObject({
      status: 'failed',
      statusCode: '2-01-01',
      statusDescription: 'The provider is temporarily unavailable.',
    });
    const events = await db.query(
      `SELECT envelope->'payload'->>'status' AS s FROM payouts.outbox WHERE key = $1 ORDER BY id`,
      [id],
    );
    expect(events.rows.map((r) => r.s)).toEqual(['registered', 'failed']);
  });
});
