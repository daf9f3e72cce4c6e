import Decimal from 'decimal.js';
import { findCurrency } from '@payments/money';
import { eventually, http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aPayoutRequest, TRON_ADDRESS, withPayoutMethods } from '../support/transfers';
import { untilStatus } from '../support/wait';

/** The scale of a registry currency: every figure below is exact to its minor unit. */
function scaleOf(code: string): number {
  const found = findCurrency(code);
  if (found.kind !== 'found') throw new Error(`${code} is not in the currency registry`);
  return found.currency.scale;
}
const USD = scaleOf('USD');
const USDT = scaleOf('USDT');
const d = (v: Decimal.Value) => new Decimal(v);
/** As the API writes an amount: plain, without trailing zeros. */
const text = (v: Decimal) => v.toFixed();

interface Item {
  id: string;
  kind: string;
  source: { type: string; id: string };
  gross: string;
  fee: string;
  net: string;
  operationCurrency: string;
  amount: string;
  currency: string;
  rate?: { rate: string };
  credits?: number;
}

/**
 * Issue 29, "Done when", through HTTP only: a merchant takes orders in USD into a USDT-TRC20
 * balance; an operator sets the rate, the fees and a settlement delay of 0 through the backoffice;
 * the orders complete through the sandbox, settle, a payout is made and completes, a part of an
 * order is refunded. GET /balance, GET /balance/transactions and GET /events must agree with
 * what this test computes on its own with decimal.js, to the minor unit of the registry.
 */
describe('black box: USD orders into a USDT-TRC20 balance, to the minor unit', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let admin: string;

  beforeAll(async () => {
    stack = await TestStack.start({
      services: [
        'gateway',
        'orders',
        'callbacks-ingest',
        'provider-sandbox',
        'methods',
        'payouts',
        'merchant-callbacks',
        'ledger',
      ],
      extraEnv: { LEDGER_HOLDS: 'true', LEDGER_SETTLEMENT_SWEEP_MS: '200' },
    });
    shop = await aShop(stack.gateway!.url, 'USDT Shop');
    other = await aShop(stack.gateway!.url, 'Other Shop');
    const operator = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
      token: TEST_OPS_TOKEN,
      body: { name: 'Fay Finance', role: 'admin' },
    });
    expect(operator.status).toBe(201);
    admin = operator.body.token;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const ops = (method: string, path: string, body: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token: admin, body });
  const get = (s: TestShop, path: string) => http('GET', `${gw()}${path}`, { token: s.apiKey });
  const simulate = (body: Record<string, unknown>) =>
    http('POST', `${stack.sandbox!.url}/simulate/callback`, { body: { status: 'success', ...body } });
  const statement = async (s: TestShop): Promise<Item[]> =>
    (await get(s, '/balance/transactions?limit=100')).body.items;
  const balanceEvents = async (s: TestShop) => {
    const res = await get(s, '/events?objectType=balance&limit=500');
    expect(res.status).toBe(200);
    return (res.body.events as { objectType: string; objectId: string; body: string }[]).map((e) => ({
      ...e,
      parsed: JSON.parse(e.body),
    }));
  };

  async function completeOrder(s: TestShop, amount: string, balance?: object): Promise<string> {
    const created = await http('POST', `${gw()}/order`, {
      token: s.apiKey,
      body: { ...anOrderRequest({ amount }), ...(balance ? { recipient: { merchantBalance: balance } } : {}) },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const read = async () => (await get(s, `/order/${id}`)).body;
    await untilStatus(read, 'in_progress', `order ${id} in_progress`);
    expect((await simulate({ kind: 'payment', reference: id, amount, currency: 'USD' })).body).toMatchObject({
      delivered: true,
    });
    await untilStatus(read, 'completed', `order ${id} completed`);
    return id;
  }

  it('when orders complete, settle, pay out and are partly refunded, then every figure adds up to the minor unit', async () => {
    // The operator's settings, through the backoffice.
    const rate = d('0.998731');
    expect(
      await ops('PUT', `/shops/${shop.shopId}/fees/%2A/USD`, {
        percent: '2.5',
        fixed: '0.30',
        minimum: '1.00',
        reason: 'Card schedule',
      }),
    ).toMatchObject({ status: 200 });
    expect(
      await ops('PUT', `/shops/${shop.shopId}/fees/usdt-payout/USDT-TRC20`, {
        percent: '0.5',
        fixed: '1',
        minimum: '0',
        reason: 'Crypto payout schedule',
      }),
    ).toMatchObject({ status: 200 });
    expect(
      await ops('PUT', `/shops/${shop.shopId}/settlement`, { settlementDelaySeconds: 0, reason: 'Settles at once' }),
    ).toMatchObject({ status: 200 });
    expect(
      await ops('POST', '/rates', {
        base: 'USD',
        quote: 'USDT-TRC20',
        rate: rate.toFixed(),
        validFrom: new Date(Date.now() - 60_000).toISOString(),
        reason: 'Treasury rate',
      }),
    ).toMatchObject({ status: 201 });

    // What the books must say, computed here: fee half up in USD, the net converted and rounded down.
    const grosses = ['100.99', '250.99', '12.99'];
    const expected = grosses.map((g) => {
      const gross = d(g);
      const raw = Decimal.max(gross.times('2.5').dividedBy(100).plus('0.30'), d('1.00'));
      const fee = raw.toDecimalPlaces(USD, Decimal.ROUND_HALF_UP);
      const net = gross.minus(fee);
      const converted = net.times(rate).toDecimalPlaces(USDT, Decimal.ROUND_DOWN);
      return { gross, fee, net, converted };
    });
    // The minimum applies to the small one: 2.5 % of 12.99 + 0.30 = 0.62475 < 1.00.
    expect(text(expected[2].fee)).toBe('1');

    const usdt = { currency: 'USDT', tokenStandard: 'TRC20' };
    const orders: string[] = [];
    for (const g of grosses) orders.push(await completeOrder(shop, g, usdt));
    const credited = expected.reduce((sum, e) => sum.plus(e.converted), d(0));

    // Settlement delay 0: everything becomes available.
    const settled = await eventually(
      async () => {
        const b = (await get(shop, '/balance')).body.balances;
        return b?.[0]?.available === text(credited) ? b : undefined;
      },
      30_000,
      'the credits settled',
    );
    expect(settled).toEqual([
      { currency: 'USDT-TRC20', available: text(credited), pending: '0', reserved: '0', owed: '0' },
    ]);

    // A payout of 100.99 USDT-TRC20: 0.5 % + 1 = 1.50495, held with the amount, then posted.
    await withPayoutMethods(gw(), shop.shopId);
    const payoutAmount = d('100.99');
    const payoutFee = payoutAmount.times('0.5').dividedBy(100).plus(1).toDecimalPlaces(USDT, Decimal.ROUND_HALF_UP);
    const held = payoutAmount.plus(payoutFee);
    const payout = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      body: aPayoutRequest({
        amount: payoutAmount.toFixed(2),
        currency: 'USDT',
        tokenStandard: 'TRC20',
        method: 'usdt-payout',
        payee: { walletAddress: TRON_ADDRESS },
      }),
    });
    expect(payout.status).toBe(201);
    expect((await get(shop, '/balance')).body.balances).toEqual([
      { currency: 'USDT-TRC20', available: text(credited.minus(held)), pending: '0', reserved: text(held), owed: '0' },
    ]);
    const readPayout = async () => (await get(shop, `/payouts/${payout.body.id}`)).body;
    await untilStatus(readPayout, 'in_progress', 'payout in_progress');
    await simulate({ kind: 'payout', reference: payout.body.id, amount: '100.99', ...usdt });
    await untilStatus(readPayout, 'completed', 'payout completed');

    // A partial refund of the second order, at its original rate, rounded down as the credit was.
    const refundAmount = d('60.37');
    const debit = refundAmount.times(rate).toDecimalPlaces(USDT, Decimal.ROUND_DOWN);
    const refund = await http('POST', `${gw()}/order/refund`, {
      token: shop.apiKey,
      body: { orderId: orders[1], cost: { amount: refundAmount.toFixed(2), currency: 'USD' } },
    });
    expect(refund.status).toBe(200);

    const items = await eventually(
      async () => {
        const all = await statement(shop);
        return all.some((i) => i.kind === 'order_refunded') && all.some((i) => i.kind === 'payout_posted')
          ? all
          : undefined;
      },
      30_000,
      'the payout and the refund booked',
    );
    const available = credited.minus(held).minus(debit);
    const final = [{ currency: 'USDT-TRC20', available: text(available), pending: '0', reserved: '0', owed: '0' }];
    expect((await get(shop, '/balance')).body.balances).toEqual(final);

    // The statement, item by item.
    const ofKind = (kind: string) => items.filter((i) => i.kind === kind);
    // Credits that come due in one sweep settle as one (decision 351): one to three settlements.
    expect(
      items
        .filter((i) => i.kind !== 'settlement')
        .map((i) => i.kind)
        .sort(),
    ).toEqual(
      [
        ...Array(3).fill('order_completed'),
        'payout_reserved',
        'payout_posted',
        'refund_reserved',
        'order_refunded',
      ].sort(),
    );
    expected.forEach((e, n) => {
      const [credit] = ofKind('order_completed').filter((i) => i.source.id === orders[n]);
      expect(credit).toMatchObject({
        source: { type: 'order', id: orders[n] },
        gross: text(e.gross),
        fee: text(e.fee),
        net: text(e.net),
        operationCurrency: 'USD',
        amount: text(e.converted),
        currency: 'USDT-TRC20',
        rate: { rate: text(rate) },
      });
      expect(d(credit.gross).minus(credit.fee).equals(d(credit.net))).toBe(true);
    });
    const settlements = ofKind('settlement');
    expect(settlements.length).toBeGreaterThanOrEqual(1);
    expect(settlements.reduce((n, i) => n + (i.credits ?? 0), 0)).toBe(3);
    expect(settlements.reduce((sum, i) => sum.plus(i.amount), d(0)).equals(credited)).toBe(true);
    for (const i of settlements) expect(i.source).toEqual({ type: 'settlement', id: i.id });
    const money = (i: Item) => [i.gross, i.fee, i.net, i.amount, i.currency];
    expect(money(ofKind('payout_reserved')[0])).toEqual([
      text(held),
      text(payoutFee),
      text(payoutAmount),
      text(held.negated()),
      'USDT-TRC20',
    ]);
    expect(money(ofKind('payout_posted')[0])).toEqual([
      text(held),
      text(payoutFee),
      text(payoutAmount),
      '0',
      'USDT-TRC20',
    ]);
    expect(ofKind('refund_reserved')[0]).toMatchObject({
      source: { id: orders[1] },
      gross: text(refundAmount),
      amount: text(debit.negated()),
      currency: 'USDT-TRC20',
    });
    expect(ofKind('order_refunded')[0]).toMatchObject({ gross: text(refundAmount), amount: '0' });
    // What moved available: the settlements in, the payout's hold and the refund's hold out.
    const intoAvailable = [...ofKind('settlement'), ...ofKind('payout_reserved'), ...ofKind('refund_reserved')];
    expect(text(intoAvailable.reduce((sum, i) => sum.plus(i.amount), d(0)))).toBe(text(available));

    // The events feed: one balance event per ledger batch (decision 339), every transaction named
    // by exactly one of them, the last one's figures the balance now.
    const named = (es: { parsed: { transactions: { id: string }[] } }[]) =>
      es.flatMap((e) => e.parsed.transactions.map((t) => t.id));
    const events = await eventually(
      async () => {
        const all = await balanceEvents(shop);
        return named(all).length === items.length ? all : undefined;
      },
      30_000,
      'a balance event naming every transaction',
    );
    expect(named(events).sort()).toEqual(items.map((i) => i.id).sort());
    for (const e of events) {
      expect(e.parsed).toMatchObject({ type: 'balance.updated', objectType: 'balance', shopId: shop.shopId });
      expect(e.objectId).toBe(e.parsed.transaction.id);
      expect(e.parsed.transactions.at(-1)).toEqual(e.parsed.transaction);
    }
    const last = events.at(-1)!.parsed;
    // The last event carries the figures GET /balance answers, owed included (decision 348).
    expect([
      {
        currency: last.currency,
        available: last.available,
        pending: last.pending,
        reserved: last.reserved,
        owed: last.owed,
      },
    ]).toEqual(final);
    // Balance events are for the feed only: none of them is a callback delivery.
    const all = (await get(shop, '/events?limit=500')).body.events as { objectType: string }[];
    expect(all.filter((e) => e.objectType === 'balance')).toHaveLength(events.length);
  });

  it("when another shop's balance changes, then its events are on its own feed only", async () => {
    const order = await completeOrder(other, '40.99');
    const theirs = await eventually(
      async () => {
        const all = await balanceEvents(other);
        return all.length > 0 ? all : undefined;
      },
      30_000,
      "the other shop's balance event",
    );
    expect(theirs.map((e) => [e.parsed.shopId, e.parsed.currency, e.parsed.transaction.source.id])).toEqual([
      [other.shopId, 'USD', order],
    ]);
    const ours = await balanceEvents(shop);
    expect(ours.filter((e) => e.parsed.shopId !== shop.shopId)).toEqual([]);
    expect(ours.map((e) => e.parsed.transaction.id)).not.toContain(theirs[0].parsed.transaction.id);
  });
});
