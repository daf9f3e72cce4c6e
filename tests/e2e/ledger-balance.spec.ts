import { Client } from 'pg';
import { loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
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
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox'] });
    ledger = await startLedger(loadLedgerConfig(stack.env({ LEDGER_SETTLEMENT_SWEEP_MS: '200' })), 0);
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
      { currency: 'USDT-TRC20', available: '0', pending: '97.97366', reserved: '0' },
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
});
