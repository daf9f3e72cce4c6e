import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { ProcessingTimeoutSweeper } from '@payments/apps/orders';
import { sign } from '@payments/providers/sandbox';
import { eventually, http } from '@payments/testing';
import { aShop, anOrder as createOrder, anOrderRequest, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TEST_SANDBOX_SECRET, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * Orders through the running services: shop settings from the operator API reach the fold, the
 * rules of spec section 3, cancel and the deprecated reject, operators resolving need_action, the
 * processing timeout and customers. Amounts end in .99: the sandbox accepts such payments and
 * never calls back, so each test sends the provider's callbacks itself.
 */
describe('orders: every rule of the spec, through gateway, Kafka, orders and callbacks-ingest', () => {
  let stack: TestStack;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '0' } });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${opsUrlOf(gw())}/ops/v1${path}`, { token: TEST_OPS_TOKEN, body });

  async function shopWith(settings: Record<string, unknown>): Promise<TestShop> {
    const shop = await aShop(gw());
    const res = await ops('PATCH', `/shops/${shop.shopId}/settings`, settings);
    expect(res.status).toBe(200);
    await eventually(
      async () => {
        const r = await db.query('SELECT version FROM orders.shop_settings WHERE shop_id = $1', [shop.shopId]);
        return r.rows[0]?.version === res.body.version ? true : undefined;
      },
      15000,
      'settings in orders',
    );
    return shop;
  }

  const anOrder = (
    shop: TestShop,
    over: Parameters<typeof anOrderRequest>[0] = {},
    extra: Record<string, unknown> = {},
  ) => createOrder(gw(), shop, over, extra);

  /** Sends a signed sandbox callback; answers the eventId our services give it. */
  async function callback(orderId: string, body: Record<string, unknown>): Promise<string> {
    const providerEventId = `evt-${randomUUID()}`;
    const raw = JSON.stringify({
      eventId: providerEventId,
      kind: 'payment',
      reference: orderId,
      paymentId: 'p1',
      status: 'success',
      amount: '100.99',
      currency: 'USD',
      ...body,
    });
    const res = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
      },
    });
    expect(res.status).toBe(200);
    return callbackEventId('sandbox', providerEventId);
  }

  const get = (shop: TestShop, id: string) => http('GET', `${gw()}/order/${id}`, { token: shop.apiKey });
  const until = (shop: TestShop, id: string, status: string) =>
    untilStatus(async () => (await get(shop, id)).body, status, `order ${id} ${status}`);
  const eventsOf = async (orderId: string) =>
    (
      await db.query(`SELECT envelope->'payload'->>'status' AS status FROM orders.outbox WHERE key = $1 ORDER BY id`, [
        orderId,
      ])
    ).rows.map((r) => r.status);

  describe('a provider reports another amount or currency', () => {
    let shop: TestShop;
    beforeAll(async () => {
      shop = await shopWith({ amountDeviation: { lowerPercent: '2', upperPercent: '5' } });
    });

    it('when the amount is within the shop range, then it is accepted automatically and the original amount is kept', async () => {
      const order = await anOrder(shop);
      await callback(order.id, { amount: '99.00' });
      const done = await until(shop, order.id, 'completed');
      expect(done.statusCode).toBe('0-07-01');
      expect(done.order.cost).toEqual({ amount: '99.00', currency: 'USD' });
      expect(done.order.originalCost).toEqual({ amount: '100.99', currency: 'USD' });
    });

    it('when the amount is outside the range, then the order needs action with 2-07-04 and shows the reported amount', async () => {
      const order = await anOrder(shop);
      await callback(order.id, { amount: '90.00' });
      const waiting = await until(shop, order.id, 'need_action');
      expect(waiting).toMatchObject({
        statusCode: '2-07-04',
        statusDescription: expect.stringContaining('amount'),
        order: { reportedCost: { amount: '90.00' } },
      });
    });

    it('when the currency differs, even with the same amount, then the order needs action with 2-07-04', async () => {
      const order = await anOrder(shop);
      await callback(order.id, { currency: 'EUR' });
      expect((await until(shop, order.id, 'need_action')).statusCode).toBe('2-07-04');
    });

    it('when the token standard differs, then it is a currency difference', async () => {
      const req = anOrderRequest({ amount: '50.99', currency: 'USDT' });
      (req.order.cost as Record<string, unknown>).tokenStandard = 'TRC20';
      const created = await http('POST', `${gw()}/order`, { token: shop.apiKey, body: req });
      await callback(created.body.id, { amount: '50.99', currency: 'USDT', tokenStandard: 'ERC20' });
      expect(await until(shop, created.body.id, 'need_action')).toMatchObject({
        statusCode: '2-07-04',
        needAction: {
          rule: 'currency_differs',
          expected: { amount: '50.99', currency: 'USDT', tokenStandard: 'TRC20' },
          reported: { amount: '50.99', currency: 'USDT', tokenStandard: 'ERC20' },
        },
      });
    });

    it('when auto-finalization is off and the right amount follows, then the order stays in need_action until an operator fails it', async () => {
      const order = await anOrder(shop);
      await callback(order.id, { amount: '10.00' });
      await until(shop, order.id, 'need_action');
      const followUp = await callback(order.id, { amount: '100.99' });
      // The follow-up was consumed (its eventId is in the inbox) and the order did not move.
      await eventually(
        async () =>
          (await db.query(`SELECT 1 FROM orders.inbox WHERE event_id = $1`, [followUp])).rowCount === 1
            ? true
            : undefined,
        15000,
        'follow-up consumed',
      );
      expect((await get(shop, order.id)).body.status).toBe('need_action');
      const failed = await ops('POST', `/orders/${order.id}/resolve`, { action: 'fail', note: 'payer disputes' });
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ status: 'failed', statusCode: '1-07-03' });
    });

    it('when an operator accepts the reported amount, then the order completes with it and keeps the original', async () => {
      const order = await anOrder(shop);
      await callback(order.id, { amount: '80.00' });
      await until(shop, order.id, 'need_action');
      const accepted = await ops('POST', `/orders/${order.id}/resolve`, { action: 'accept_reported_amount' });
      expect(accepted.body).toMatchObject({
        status: 'completed',
        statusCode: '1-07-04',
        order: { cost: { amount: '80.00' }, originalCost: { amount: '100.99' } },
      });
      const again = await ops('POST', `/orders/${order.id}/resolve`, { action: 'fail' });
      expect(again.status).toBe(409);
      expect(again.body.currentStatus).toBe('completed');
    });

    it('when a merchant key calls the operator API, then it is refused', async () => {
      const res = await http('POST', `${opsUrlOf(gw())}/ops/v1/orders/${randomUUID()}/resolve`, {
        token: shop.apiKey,
        body: { action: 'fail' },
      });
      expect(res.status).toBe(401);
    });
  });

  it('when an operator lists orders with a crafted cursor, then 400 naming the cursor, not a database failure', async () => {
    const crafted = (text: string) => Buffer.from(text).toString('base64url');
    for (const text of [`2026-11-24T23:00:00.000Z|${'-'.repeat(36)}`, `+275760-09-13T00:00:00.000Z|${randomUUID()}`]) {
      const res = await ops('GET', `/orders?cursor=${crafted(text)}`);
      expect({ text, status: res.status }).toEqual({ text, status: 400 });
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['cursor']);
    }
  });

  it('when auto-finalization is on, then the follow-up callback with the right amount resolves need_action by itself', async () => {
    const shop = await shopWith({ autoFinalizeNeedAction: true });
    const order = await anOrder(shop);
    await callback(order.id, { amount: '10.00' });
    await until(shop, order.id, 'need_action');
    await callback(order.id, { amount: '100.99' });
    expect((await until(shop, order.id, 'completed')).statusCode).toBe('0-01-00');
    expect(await eventsOf(order.id)).toEqual(expect.arrayContaining(['registered', 'need_action', 'completed']));
  });

  it('when an order needs action for another currency, then no follow-up callback resolves it, even with auto-finalization on', async () => {
    const shop = await shopWith({ autoFinalizeNeedAction: true });
    const order = await anOrder(shop);
    await callback(order.id, { currency: 'EUR' });
    expect((await until(shop, order.id, 'need_action')).statusCode).toBe('2-07-04');
    const followUps = [await callback(order.id, { amount: '100.99' }), await callback(order.id, { status: 'failed' })];
    // Both follow-ups reached the orders service (its inbox holds them) and changed nothing.
    await eventually(
      async () => {
        const r = await db.query(`SELECT count(*)::int AS n FROM orders.inbox WHERE event_id = ANY($1::uuid[])`, [
          followUps,
        ]);
        return r.rows[0].n === 2 ? true : undefined;
      },
      15000,
      'both follow-up callbacks applied',
    );
    const still = await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey });
    expect(still.body).toMatchObject({ status: 'need_action', statusCode: '2-07-04' });
    const events = await eventsOf(order.id);
    expect(events.at(-1)).toBe('need_action');
    expect(events).not.toEqual(expect.arrayContaining(['completed']));
    expect(events).not.toEqual(expect.arrayContaining(['failed']));
  });

  describe('cancel, and the deprecated reject', () => {
    let shop: TestShop;
    beforeAll(async () => {
      shop = await aShop(gw());
    });

    it('when a non-final order is cancelled, then it is cancelled with a status code; cancelling again answers the same', async () => {
      const order = await anOrder(shop);
      const res = await http('POST', `${gw()}/api/v1/order/cancel`, {
        token: shop.apiKey,
        body: { orderId: order.id },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'cancelled', statusCode: '1-08-01' });
      const again = await http('POST', `${gw()}/order/cancel`, { token: shop.apiKey, body: { orderId: order.id } });
      expect(again.body.status).toBe('cancelled');
      expect(await eventsOf(order.id)).toEqual(expect.arrayContaining(['cancelled']));
    });

    it('when a final order is cancelled, then it is a 409 with its current status', async () => {
      const order = await anOrder(shop);
      await callback(order.id, {});
      await until(shop, order.id, 'completed');
      const res = await http('POST', `${gw()}/api/v1/order/cancel`, {
        token: shop.apiKey,
        body: { orderId: order.id },
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ type: '/problems/conflict', status: 409 });
      expect(res.body.currentStatus).toBe('completed');
      expect(res.body.detail).toContain('completed');
    });

    it('when reject is used, then it cancels and says it is deprecated, when it ends, and what replaces it', async () => {
      const order = await anOrder(shop);
      const res = await http('POST', `${gw()}/api/v1/order/reject`, {
        token: shop.apiKey,
        body: { orderId: order.id },
      });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('cancelled');
      expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(new Date(res.headers.get('sunset')!).getTime()).toBeGreaterThan(Date.UTC(2026, 2, 3));
      expect(res.headers.get('link')).toBe('</api/v1/order/cancel>; rel="successor-version"');
    });

    it("when another shop's order is cancelled, then it is 404", async () => {
      const other = await aShop(gw());
      const order = await anOrder(other);
      const res = await http('POST', `${gw()}/order/cancel`, { token: shop.apiKey, body: { orderId: order.id } });
      expect(res.status).toBe(404);
      expect((await get(other, order.id)).body.status).not.toBe('cancelled');
    });
  });

  describe('refunds', () => {
    it('when a paid order is refunded in parts, then it is partially_refunded, then refunded; never more than was paid', async () => {
      const shop = await aShop(gw());
      const order = await anOrder(shop);
      const refund = (amount: string, currency = 'USD') =>
        http('POST', `${gw()}/api/v1/order/refund`, {
          token: shop.apiKey,
          body: { orderId: order.id, cost: { amount, currency } },
        });
      const early = await refund('1.00');
      expect(early.status).toBe(409);
      await callback(order.id, {});
      await until(shop, order.id, 'completed');
      const part = await refund('40.00');
      expect(part.status).toBe(200);
      expect(part.body).toMatchObject({
        status: 'partially_refunded',
        statusCode: '0-07-02',
        data: { refunds: [{ amount: '40.00', currency: 'USD' }] },
      });
      const tooMuch = await refund('61.00');
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.errors[0].path).toBe('cost.amount');
      const wrongCurrency = await refund('1.00', 'EUR');
      expect(wrongCurrency.status).toBe(422);
      expect(wrongCurrency.body.errors[0].path).toBe('cost.currency');
      const badAmount = await refund('1.001');
      expect(badAmount.status).toBe(400);
      const rest = await refund('60.99');
      expect(rest.body).toMatchObject({ status: 'refunded', statusCode: '0-07-03' });
      expect(rest.body.data.refunds).toHaveLength(2);
      expect((await refund('0.01')).status).toBe(409);
      expect(await eventsOf(order.id)).toEqual(expect.arrayContaining(['partially_refunded', 'refunded']));
    });

    it('when two refunds race for the same rest, then only one of them is made', async () => {
      const shop = await aShop(gw());
      const order = await anOrder(shop);
      await callback(order.id, {});
      await until(shop, order.id, 'completed');
      const both = await Promise.all(
        [1, 2].map(() =>
          http('POST', `${gw()}/order/refund`, {
            token: shop.apiKey,
            body: { orderId: order.id, cost: { amount: '100.99', currency: 'USD' } },
          }),
        ),
      );
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      const rows = await db.query('SELECT count(*) FROM orders.refunds WHERE order_id = $1', [order.id]);
      expect(Number(rows.rows[0].count)).toBe(1);
    });
  });

  describe('processing timeout (tested with a controllable clock)', () => {
    it('when 7 days pass without a terminal answer, then payment orders fail with a status code; a raised timeout and crypto payments are respected; two sweepers fail each order once', async () => {
      const shop = await shopWith({ processingTimeout: { byPaymentSetting: { bank_transfer: 14 * 24 * 3600 } } });
      const card = await anOrder(shop, {}, { instrumentType: 'card' });
      const bank = await anOrder(shop, {}, { instrumentType: 'bank_transfer' });
      const crypto = await anOrder(shop, { amount: '0.99', currency: 'BTC' });
      const plain = await anOrder(shop);
      // A failed-over order whose first provider also took the money (decision 322) waits for an operator.
      const charged = await anOrder(shop, {}, { instrumentType: 'card' });
      await db.query(
        `UPDATE orders.orders SET status = 'need_action', status_code = '2-07-07', need_action_reason = 'duplicate_payment'
          WHERE id = $1`,
        [charged.id],
      );
      const sweeper = stack.orders![0].app.get(ProcessingTimeoutSweeper);
      const created = Date.now();

      expect(await sweeper.sweep(new Date(created + 6 * 24 * 3600 * 1000))).toBe(0);

      // A second orders instance sweeps at the same moment: each due order is failed exactly once.
      const second = await import('@payments/apps/orders').then(({ loadOrdersConfig, startOrders }) =>
        startOrders(loadOrdersConfig(stack.env({ ORDERS_SWEEP_INTERVAL_MS: '0' })), 0),
      );
      try {
        const at = new Date(created + 7 * 24 * 3600 * 1000 + 60_000);
        const [a, b] = await Promise.all([sweeper.sweep(at), second.app.get(ProcessingTimeoutSweeper).sweep(at)]);
        expect(a + b).toBeGreaterThanOrEqual(2);
      } finally {
        await second.close();
      }
      for (const id of [card.id, plain.id]) {
        expect((await get(shop, id)).body).toMatchObject({ status: 'failed', statusCode: '1-07-01' });
        expect((await eventsOf(id)).filter((s) => s === 'failed')).toHaveLength(1);
      }
      expect((await get(shop, bank.id)).body.status).not.toBe('failed');
      expect(await sweeper.sweep(new Date(created + 15 * 24 * 3600 * 1000))).toBeGreaterThanOrEqual(1);
      expect((await get(shop, bank.id)).body.status).toBe('failed');
      expect(await sweeper.sweep(new Date(created + 365 * 24 * 3600 * 1000))).toBe(0);
      expect((await get(shop, crypto.id)).body.status).not.toBe('failed');
      expect((await get(shop, charged.id)).body).toMatchObject({ status: 'need_action', statusCode: '2-07-07' });
    });
  });

  describe('customers and payer data', () => {
    it('when orders name the same customerId, or the same e-mail and phone, then they share a customer; otherwise each gets a new one', async () => {
      const shop = await aShop(gw());
      const byId1 = await anOrder(shop, {}, { payer: { customerId: 'c-42', email: 'a@example.com' } });
      const byId2 = await anOrder(
        shop,
        {},
        { payer: { customerId: 'c-42', email: 'other@example.com', phone: '+998900000001' } },
      );
      const byContact1 = await anOrder(shop, {}, { payer: { email: 'b@example.com', phone: '+998900000002' } });
      const byContact2 = await anOrder(shop, {}, { payer: { email: 'B@example.com', phone: '+998900000002' } });
      const emailOnly = await anOrder(shop, {}, { payer: { email: 'b@example.com' } });
      const nobody = await anOrder(shop, {}, { payer: {} });
      const customer = async (o: { id: string }) => (await get(shop, o.id)).body.customer.id as string;
      expect(await customer(byId1)).toBe(await customer(byId2));
      expect(await customer(byContact1)).toBe(await customer(byContact2));
      const ids = new Set([
        await customer(byId1),
        await customer(byContact1),
        await customer(emailOnly),
        await customer(nobody),
      ]);
      expect(ids.size).toBe(4);
    });

    it('when the company setting "Use customer data as payer information" is off, then bankTransferData does not take effect; when on, it does', async () => {
      const shop = await aShop(gw());
      const bank = { bankCode: 'NBU01', accountName: 'Jane Doe', accountNumber: '20208000900123456789' };
      const off = await http('POST', `${gw()}/order`, {
        token: shop.apiKey,
        body: {
          ...anOrderRequest({ amount: '10.99' }),
          instrumentType: 'bank_transfer',
          payer: { bankTransferData: bank },
        },
      });
      expect(off.status).toBe(201);
      expect(off.body.payer?.bankTransferData).toBeUndefined();

      const on = await ops('PATCH', `/companies/${shop.companyId}/settings`, { useCustomerDataAsPayer: true });
      expect(on.status).toBe(200);
      const audit = await ops('GET', `/audit?action=company.settings.update&objectId=${shop.companyId}`);
      expect(audit.body.items[0]).toMatchObject({
        before: { id: shop.companyId, useCustomerDataAsPayer: false },
        after: { id: shop.companyId, useCustomerDataAsPayer: true },
      });
      await eventually(
        async () => {
          const r = await db.query(
            `SELECT settings->>'useCustomerDataAsPayer' AS on FROM orders.shop_settings WHERE shop_id = $1`,
            [shop.shopId],
          );
          return r.rows[0]?.on === 'true' ? true : undefined;
        },
        15000,
        'company setting in orders',
      );
      const kept = await http('POST', `${gw()}/order`, {
        token: shop.apiKey,
        body: {
          ...anOrderRequest({ amount: '10.99' }),
          instrumentType: 'bank_transfer',
          payer: { bankTransferData: bank },
        },
      });
      expect(kept.body.payer.bankTransferData).toEqual(bank);
    });
  });

  it('when an operator sends invalid settings, then it is a 400 naming the field and nothing changes', async () => {
    const shop = await aShop(gw());
    const before = await ops('GET', `/shops/${shop.shopId}/settings`);
    for (const [body, path] of [
      [{ amountDeviation: { lowerPercent: '-1', upperPercent: '5' } }, 'amountDeviation.lowerPercent'],
      [{ processingTimeout: { defaultSeconds: 3600 } }, 'processingTimeout.defaultSeconds'],
      [{ processingTimeout: { byPaymentSetting: { cheque: 999999 } } }, 'processingTimeout.byPaymentSetting'],
      [{ autoFinalizeNeedAction: 'yes' }, 'autoFinalizeNeedAction'],
    ] as const) {
      const res = await ops('PATCH', `/shops/${shop.shopId}/settings`, body);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await ops('GET', `/shops/${shop.shopId}/settings`)).body).toEqual(before.body);
  });
});
