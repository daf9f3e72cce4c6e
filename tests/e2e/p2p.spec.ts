import { Client } from 'pg';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { eventually, http, TopicReader } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest } from '../support/transfers';
import * as provider from '../support/provider';
import * as wait from '../support/wait';

/**
 * P2P transactions through the running services: gateway → p2p.commands → p2p, sent to the
 * provider sandbox off the merchant's request, callbacks back through callbacks-ingest, status
 * changes out on p2p.events.
 */
describe('P2P transactions: from the merchant request to the provider callback and the final status', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  let events: TopicReader;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'callbacks-ingest', 'provider-sandbox', 'p2p'] });
    [shop, other] = [await aShop(stack.gateway!.url), await aShop(stack.gateway!.url, 'Other Shop')];
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    events = await TopicReader.start([`${stack.prefix}p2p.events`]);
  });

  afterAll(async () => {
    await events?.stop();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const post = (body: unknown, s: TestShop = shop) => http('POST', `${gw()}/p2p`, { token: s.apiKey, body });
  const get = (id: string, s: TestShop = shop) => http('GET', `${gw()}/p2p/${id}`, { token: s.apiKey });

  async function create(over: Parameters<typeof aP2pRequest>[0] = {}): Promise<any> {
    const res = await post(aP2pRequest(over));
    if (res.status !== 201) throw new Error(`P2P transaction not created: ${res.status} ${res.text}`);
    return res.body;
  }

  const until = (id: string, status: string) =>
    wait.untilStatus(async () => (await get(id)).body, status, `P2P ${id} ${status}`);
  const dispatchOf = (p2pId: string) => provider.dispatchOf(db, 'p2p', p2pId);
  const published = (p2pId: string) => wait.published(events, `${stack.prefix}p2p.events`, p2pId);
  const publishedCount = (p2pId: string, n: number) =>
    wait.publishedCount(events, `${stack.prefix}p2p.events`, p2pId, n);

  it('when a P2P transaction is requested, then it is registered, sent once, and the provider callback completes it, with events 1..3 on p2p.events', async () => {
    const created = await create({ amount: '50.99', extra: { callbackUrl: 'https://shop.example/p2p-callbacks' } });
    expect(created).toMatchObject({
      status: 'registered',
      statusCode: '1-01-05',
      statusDescription: 'P2P transaction registered; awaiting sending to the provider.',
      p2p: { cost: { amount: '50.99', currency: 'USD' } },
      sender: { customerId: 'cust-1', name: 'Jane Doe', cardNumber: '411111******1111' },
      recipient: { name: 'John Roe', phone: '+998901234567', cardNumber: '860012******9012' },
    });
    expect(JSON.stringify(created)).not.toContain('4111111111111111');
    const inProgress = await until(created.id, 'in_progress');
    expect(inProgress).toMatchObject({
      statusCode: '1-01-06',
      statusDescription: 'P2P transaction is being processed by the provider.',
    });
    const dispatch = await dispatchOf(created.id);
    expect(dispatch).toMatchObject({
      status: 'accepted',
      sends: 1,
      dispatch_id: expect.stringMatching(/^p2p_[0-9a-f-]{36}$/),
    });
    const atSandbox = await http(
      'GET',
      `${stack.sandbox!.url}/payments/${created.id}/${dispatch.dispatch_id}?kind=p2p`,
    );
    expect(atSandbox.body).toMatchObject({ kind: 'p2p', reference: created.id, amount: '50.99', requests: 1 });

    const sim = await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: {
        kind: 'p2p',
        reference: created.id,
        paymentId: dispatch.dispatch_id,
        status: 'success',
        amount: '50.99',
        currency: 'USD',
      },
    });
    expect(sim.body).toMatchObject({ delivered: true });
    expect(await until(created.id, 'completed')).toMatchObject({ statusCode: '0-01-00' });

    const sent = await publishedCount(created.id, 3);
    expect(sent.map((e) => [e.type, e.payload.sequence, e.payload.previousStatus, e.payload.status])).toEqual([
      ['p2p.status_changed', 1, null, 'registered'],
      ['p2p.status_changed', 2, 'registered', 'in_progress'],
      ['p2p.status_changed', 3, 'in_progress', 'completed'],
    ]);
    expect(sent[2].payload).toEqual({
      p2pId: created.id,
      shopId: shop.shopId,
      merchantP2pId: created.p2p.merchantP2pId,
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      statusCode: '0-01-00',
      statusDescription: 'Operation completed successfully.',
      cost: { amount: '50.99', currency: 'USD' },
      callbackUrl: 'https://shop.example/p2p-callbacks',
    });
  });

  it('when the provider declines (.13), then the transaction fails with 2-07-06', async () => {
    const created = await create({ amount: '5.13' });
    expect(await until(created.id, 'failed')).toMatchObject({
      statusCode: '2-07-06',
      statusDescription: 'P2P transaction declined by the provider.',
    });
  });

  it('when the provider repeats its success callback (.41), then the transaction completes once', async () => {
    const created = await create({ amount: '7.41' });
    await until(created.id, 'completed');
    const { dispatch_id } = await dispatchOf(created.id);
    const callbacks = await eventually(
      async () => {
        const p = (await http('GET', `${stack.sandbox!.url}/payments/${created.id}/${dispatch_id}?kind=p2p`)).body;
        return p.callbacks.length === 3 &&
          p.callbacks.every((c: { responseStatus?: number }) => c.responseStatus === 200)
          ? p.callbacks
          : undefined;
      },
      15000,
      'three callbacks delivered',
    );
    const ids = [...new Set(callbacks.map((c: { eventId: string }) => callbackEventId('sandbox', c.eventId)))];
    await eventually(
      async () =>
        (await db.query('SELECT count(*)::int AS n FROM p2p.inbox WHERE event_id = ANY($1::uuid[])', [ids])).rows[0]
          .n === ids.length
          ? true
          : undefined,
      15000,
      'consumed',
    );
    expect(published(created.id).map((e) => e.payload.status)).toEqual(['registered', 'in_progress', 'completed']);
  });

  it('when the provider does not answer in time (.31), then the transaction needs action with 1-07-05 and the late callback completes it', async () => {
    const created = await create({ amount: '9.31' });
    expect(await until(created.id, 'need_action')).toMatchObject({ statusCode: '1-07-05' });
    expect(await until(created.id, 'completed')).toMatchObject({ statusCode: '0-01-00' });
  });

  it('when the provider reports another currency (.22), then the transaction needs action 2-07-04 until an operator fails it', async () => {
    const created = await create({ amount: '8.22' });
    expect(await until(created.id, 'need_action')).toMatchObject({
      statusCode: '2-07-04',
      p2p: { reportedCost: { currency: 'EUR' } },
    });
    const res = await http('POST', `${opsUrlOf(gw())}/ops/v1/p2p/${created.id}/resolve`, {
      token: TEST_OPS_TOKEN,
      body: { action: 'fail', note: 'not paid out' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', statusCode: '1-07-07' });
    const audit = await http('GET', `${opsUrlOf(gw())}/ops/v1/audit?action=p2p.resolve&objectId=${created.id}`, {
      token: TEST_OPS_TOKEN,
    });
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        reason: 'not paid out',
        before: expect.objectContaining({ id: created.id, status: 'need_action', statusCode: '2-07-04' }),
        after: expect.objectContaining({ id: created.id, status: 'failed', statusCode: '1-07-07' }),
      }),
    ]);
    // The operator of the p2p.resolve, on the service's own row (decision 301).
    const row = await db.query('SELECT resolved_by FROM p2p.transactions WHERE id = $1', [created.id]);
    expect(row.rows[0].resolved_by).toEqual({ id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' });
    expect((await publishedCount(created.id, 4)).map((e) => e.payload.status)).toEqual([
      'registered',
      'in_progress',
      'need_action',
      'failed',
    ]);
  });

  it('when the cost is USDT with its token standard, then it is kept; without one, 400 names p2p.cost.tokenStandard', async () => {
    const ok = await create({ currency: 'USDT', tokenStandard: 'BEP20', amount: '3' });
    expect(ok.p2p.cost).toEqual({ amount: '3', currency: 'USDT', tokenStandard: 'BEP20' });
    const bad = await post(aP2pRequest({ currency: 'USDT', amount: '3' }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'p2p.cost.tokenStandard' })]);
  });

  it('when a card number fails its check digit and a phone is malformed, then 400 names both and never echoes the number', async () => {
    const body = aP2pRequest({ extra: { sender: { cardNumber: '4111111111111112' }, recipient: { phone: '998' } } });
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'recipient.phone',
      'sender.cardNumber',
    ]);
    expect(res.text).not.toContain('4111111111111112');
    expect(
      (await db.query('SELECT 1 FROM p2p.transactions WHERE merchant_p2p_id = $1', [body.p2p.merchantP2pId])).rowCount,
    ).toBe(0);
  });

  it('when the merchantP2pId is used again, then 409 names the existing transaction', async () => {
    const first = await create();
    const res = await post(aP2pRequest({ merchantP2pId: first.p2p.merchantP2pId }));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ p2pId: first.id, errors: [{ path: 'p2p.merchantP2pId' }] });
  });

  it('when another shop asks for the transaction, or for a malformed id, then 404 exactly as for an unknown one; /api/v1 serves the owner', async () => {
    const created = await create();
    const statuses = [
      (await get(created.id, other)).status,
      (await get('00000000-0000-4000-8000-000000000000')).status,
      (await get('x')).status,
    ];
    expect(statuses).toEqual([404, 404, 404]);
    const v1 = await http('GET', `${gw()}/api/v1/p2p/${created.id}`, { token: shop.apiKey });
    expect(v1.body.id).toBe(created.id);
  });
});
