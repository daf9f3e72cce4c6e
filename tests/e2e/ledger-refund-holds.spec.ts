import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { checkBooks, loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { eventually, http } from '@payments/testing';
import { aShop, anOrder, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { sandboxPaid } from '../support/provider';
import { untilStatus } from '../support/wait';

/**
 * Issue 29, decision 276: a refund the shop's available balance cannot cover is refused at
 * POST /order/refund with 1-06-03 and changes nothing; one within it is held before it is
 * accepted and its debit posts once when the ledger books it. Gateway, orders, callbacks-ingest
 * and a ledger on real Kafka and PostgreSQL.
 */
describe('ledger: refunds the balance must cover', () => {
  let stack: TestStack;
  let ledger: RunningLedger;
  let pg: Client;
  let shop: TestShop;

  beforeAll(async () => {
    const extraEnv = { LEDGER_HOLDS: 'true', LEDGER_SETTLEMENT_SWEEP_MS: '200' };
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox'],
      extraEnv,
    });
    ledger = await startLedger(loadLedgerConfig(stack.env(extraEnv)), 0);
    pg = new Client({ connectionString: stack.databaseUrl });
    await pg.connect();
    shop = await aShop(stack.gateway!.url);
  });

  afterAll(async () => {
    await pg?.end();
    await ledger?.close();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const balances = async () => {
    const { rows } = await pg.query<{ kind: string; balance: string }>(
      `SELECT kind, balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD'`,
      [shop.shopId],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance)]));
  };
  const refund = (orderId: string, amount: string) =>
    http('POST', `${gw()}/api/v1/order/refund`, {
      token: shop.apiKey,
      body: { orderId, cost: { amount, currency: 'USD' } },
    });
  const refundsOf = async (orderId: string) =>
    (await pg.query(`SELECT amount::text FROM orders.refunds WHERE order_id = $1`, [orderId])).rows.map((r) =>
      Number(r.amount),
    );

  async function paid(orderId: string): Promise<void> {
    await sandboxPaid(stack.ingest!.url, orderId);
    await untilStatus(
      async () => (await http('GET', `${gw()}/order/${orderId}`, { token: shop.apiKey })).body,
      'completed',
      `order ${orderId} completed`,
    );
  }

  it('when a refund exceeds the available balance, then it is refused with 1-06-03 and nothing changes; one within it posts its debit once', async () => {
    // The shop keeps 90.99 of a 100.99 payment (a fixed fee of 10.00), settled at once.
    await pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [
      shop.shopId,
    ]);
    await pg.query(`INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, '*', 'USD', 10)`, [
      shop.shopId,
    ]);
    const order = await anOrder(gw(), shop);
    await paid(order.id);
    await eventually(
      async () => ((await balances()).available === 90.99 ? true : undefined),
      30_000,
      'the settled 90.99',
    );

    // 95.00 is within what was paid (100.99) but not within the available 90.99.
    const tooMuch = await refund(order.id, '95.00');
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({
      statusCode: '1-06-03',
      retryAllowed: true,
      errors: [{ path: 'cost.amount', message: expect.stringContaining('90.99') }],
    });
    expect(await refundsOf(order.id)).toEqual([]);
    expect((await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey })).body.status).toBe('completed');
    expect(await balances()).toMatchObject({ available: 90.99, reserved: 0 });

    const within = await refund(order.id, '50.00');
    expect(within.status).toBe(200);
    expect(within.body).toMatchObject({ status: 'partially_refunded' });
    await eventually(
      async () => {
        const { rows } = await pg.query(
          `SELECT count(*)::int AS n FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_refunded'`,
          [order.id],
        );
        return rows[0].n === 1 ? true : undefined;
      },
      20_000,
      'the refund booked',
    );
    expect(await balances()).toMatchObject({ available: 40.99, reserved: 0, pending: 0 });
    const { rows: holds } = await pg.query(`SELECT status FROM ledger.refund_holds WHERE order_id = $1`, [order.id]);
    expect(holds).toEqual([{ status: 'posted' }]);

    // What is left to refund (50.99) is more than what is left available (40.99): refused too.
    const rest = await refund(order.id, '50.99');
    expect(rest.status).toBe(422);
    expect(rest.body.statusCode).toBe('1-06-03');
    expect(await refundsOf(order.id)).toEqual([50]);
    // Nothing more posts, and the books hold.
    await new Promise((r) => setTimeout(r, 500));
    const { rows: debits } = await pg.query(
      `SELECT count(*)::int AS n FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_refunded'`,
      [order.id],
    );
    expect(debits[0].n).toBe(1);
    expect(await balances()).toMatchObject({ available: 40.99, reserved: 0 });
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });

  it('when a refund refused for balance (1-06-03) is sent again with its Idempotency-Key once the balance covers it, then it runs and refunds once', async () => {
    // A shop of its own: settled at once, a fixed fee of 10.00, so a 100.99 payment leaves 90.99.
    const other = await aShop(gw());
    await pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [
      other.shopId,
    ]);
    await pg.query(`INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, '*', 'USD', 10)`, [
      other.shopId,
    ]);
    const available = async () =>
      (
        await pg.query<{ balance: string }>(
          `SELECT balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD' AND kind = 'available'`,
          [other.shopId],
        )
      ).rows[0]?.balance;
    const paidAndSettled = async (balance: number) => {
      const order = await anOrder(gw(), other);
      await sandboxPaid(stack.ingest!.url, order.id);
      await eventually(async () => (Number(await available()) === balance ? true : undefined), 30_000, `${balance}`);
      return order.id;
    };
    const key = `refund-${randomUUID()}`;
    const keyedRefund = (orderId: string) =>
      http('POST', `${gw()}/api/v1/order/refund`, {
        token: other.apiKey,
        body: { orderId, cost: { amount: '95.00', currency: 'USD' } },
        headers: { 'idempotency-key': key },
      });
    const record = async () =>
      (
        await pg.query(`SELECT state FROM gateway.idempotency_keys WHERE shop_id = $1 AND idempotency_key = $2`, [
          other.shopId,
          key,
        ])
      ).rows;

    const orderId = await paidAndSettled(90.99);
    const refused = await keyedRefund(orderId);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ statusCode: '1-06-03', retryAllowed: true });
    expect(await record()).toEqual([]); // not kept: the same request may succeed later
    const again = await keyedRefund(orderId);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Each request is a command of its own, and the ledger keeps each refusal under it (decision
    // 354): the key's one refund, refused twice, decided again when asked again.
    const { rows: refusals } = await pg.query(
      `SELECT count(DISTINCT held_id)::int AS refunds, count(DISTINCT attempt_id)::int AS attempts
         FROM ledger.hold_refusals WHERE shop_id = $1 AND held_kind = 'refund'`,
      [other.shopId],
    );
    expect(refusals).toEqual([{ refunds: 1, attempts: 2 }]);

    await paidAndSettled(181.98);
    const accepted = await keyedRefund(orderId);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'partially_refunded' });
    const replayed = await keyedRefund(orderId);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await refundsOf(orderId)).toEqual([95]);
  });
});
