import { Client } from 'pg';
import { loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { aPayoutRequest, TRON_ADDRESS, withPayoutMethods } from '../support/transfers';
import { untilStatus } from '../support/wait';
import { eventually } from '@payments/testing';

/**
 * Issue 29 through HTTP: a shop takes an order in USD into a USDT-TRC20 balance and reads
 * GET /balance and GET /balance/transactions. The rate and the fee are set in the ledger's tables
 * (their operator API is not built yet); everything else is the merchant's HTTP.
 */
describe('GET /balance: a USD order credited to a USDT-TRC20 balance', () => {
  let stack: TestStack;
  let ledger: RunningLedger;
  let db: Client;
  let shop: TestShop;

  beforeAll(async () => {
    // Payouts ask this ledger for their holds (LEDGER_HOLDS); the sandbox never answers a .99 payout.
    const extraEnv = { LEDGER_HOLDS: 'true', LEDGER_SETTLEMENT_SWEEP_MS: '200' };
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox', 'methods', 'payouts'],
      extraEnv,
    });
    ledger = await startLedger(loadLedgerConfig(stack.env(extraEnv)), 0);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    shop = await aShop(stack.gateway!.url, 'Balance Shop');
  });

  afterAll(async () => {
    await db?.end();
    await ledger?.close();
    await stack?.stop();
  });

  const get = (path: string) => http('GET', `${stack.gateway!.url}${path}`, { token: shop.apiKey });

  it('when the order completes, then pending holds the net at the rate, and the statement shows gross, fee, net and rate', async () => {
    await db.query(
      `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('USD', 'USDT-TRC20', 0.998, 'sandbox-feed', now() - interval '1 hour')`,
    );
    await db.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, percent, fixed, minimum) VALUES ($1, '*', 'USD', 2.5, 0.30, 1)`,
      [shop.shopId],
    );
    expect(await get('/balance')).toMatchObject({ status: 200, body: { shopId: shop.shopId, balances: [] } });

    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest({ amount: '100.99' }),
        recipient: { merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' } },
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const read = async () => (await get(`/order/${id}`)).body;
    await untilStatus(read, 'in_progress', `order ${id} in_progress`);
    const sim = await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: { kind: 'payment', reference: id, status: 'success', amount: '100.99', currency: 'USD' },
    });
    expect(sim.body).toMatchObject({ delivered: true });
    await untilStatus(read, 'completed', `order ${id} completed`);

    // fee = 2.5 % of 100.99 + 0.30 = 2.82475 -> 2.82; net 98.17 USD; x 0.998 = 97.97366 USDT-TRC20
    const balance = await eventually(async () => {
      const res = await get('/balance');
      return res.body.balances?.length ? res : undefined;
    }, 20_000);
    expect(balance.body.balances).toEqual([
      { currency: 'USDT-TRC20', available: '0', pending: '97.97366', reserved: '0', owed: '0' },
    ]);
    const statement = await get('/balance/transactions?limit=10');
    expect(statement.status).toBe(200);
    expect(statement.body).toMatchObject({
      items: [
        {
          kind: 'order_completed',
          source: { type: 'order', id },
          gross: '100.99',
          fee: '2.82',
          net: '98.17',
          operationCurrency: 'USD',
          amount: '97.97366',
          currency: 'USDT-TRC20',
          rate: { rate: '0.998', source: 'sandbox-feed' },
          availableOn: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    expect(await get('/balance/transactions?cursor=not%20a%20cursor')).toMatchObject({ status: 400 });
  });

  it('when the credit settles, then a payout it covers is held and one it does not is refused with 1-06-02', async () => {
    await db.query(
      `INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)
                    ON CONFLICT (shop_id) DO UPDATE SET settlement_delay_seconds = 0`,
      [shop.shopId],
    );
    // The credit of the first test was due in a day: a delay of 0 now applies to new credits only,
    // so the queue's row is brought forward as an operator's early settlement would.
    await db.query(`UPDATE ledger.pending_settlements SET available_on = now() WHERE shop_id = $1`, [shop.shopId]);
    await eventually(
      async () => {
        const b = (await get('/balance')).body.balances?.[0];
        return b?.available === '97.97366' ? b : undefined;
      },
      20_000,
      'the credit settled',
    );
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    const payout = (amount: string) =>
      http('POST', `${stack.gateway!.url}/payouts`, {
        token: shop.apiKey,
        body: aPayoutRequest({
          amount,
          currency: 'USDT',
          tokenStandard: 'TRC20',
          method: 'usdt-payout',
          payee: { walletAddress: TRON_ADDRESS },
        }),
      });
    const refused = await payout('97.99');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      statusCode: '1-06-02',
      retryAllowed: true,
      errors: [{ path: 'payout.cost.amount' }],
    });
    const held = await payout('90.99');
    expect(held.status).toBe(201);
    expect((await get('/balance')).body.balances).toEqual([
      { currency: 'USDT-TRC20', available: '6.98366', pending: '0', reserved: '90.99', owed: '0' },
    ]);
  });
});
