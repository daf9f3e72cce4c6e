import { Client } from 'pg';
import { eventually, http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';

describe('the full order request and response (spec 2.1, 2.2)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders'] });
    shop = await aShop(stack.gateway!.url);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const create = (body: unknown) => http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body });
  const orderCount = async () => Number((await db.query('SELECT count(*) FROM orders.orders')).rows[0].count);

  it('when a crypto token order carries its token standard, a wallet type and a merchant balance, then all of it is stored and answered', async () => {
    const body = anOrderRequest({ amount: '25.5', currency: 'USDT' });
    (body.order.cost as Record<string, unknown>).tokenStandard = 'TRC20';
    const res = await create({
      ...body,
      instrumentType: 'wallet',
      paymentSettings: { walletType: 'company' },
      payer: {
        email: 'p@example.com',
        phone: '+998901234567',
        walletData: { walletId: 'w-1', walletType: 'personal', walletName: 'Payme', walletHolderName: 'Jane Doe' },
      },
      recipient: { merchantBalance: { currency: 'USDC', tokenStandard: 'ERC20' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'registered',
      order: { cost: { amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' } },
      instrumentType: 'wallet',
      paymentSettings: { walletType: 'company' },
      payer: {
        walletData: { walletId: 'w-1', walletType: 'personal', walletName: 'Payme', walletHolderName: 'Jane Doe' },
      },
      recipient: { merchantBalance: { currency: 'USDC', tokenStandard: 'ERC20' } },
    });
    const row = await db.query('SELECT token_standard, is_crypto, instrument_type FROM orders.orders WHERE id = $1', [
      res.body.id,
    ]);
    expect(row.rows[0]).toEqual({ token_standard: 'TRC20', is_crypto: true, instrument_type: 'wallet' });
  });

  it('when bank transfer data comes with instrumentType bank_transfer and the company uses customer data, then its open set of members is kept', async () => {
    const on = await http('PATCH', `${opsUrlOf(stack.gateway!.url)}/ops/v1/companies/${shop.companyId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { useCustomerDataAsPayer: true },
    });
    expect(on.status).toBe(200);
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
    const res = await create({
      ...anOrderRequest(),
      instrumentType: 'bank_transfer',
      payer: {
        bankTransferData: {
          bankCode: 'NBU01',
          accountName: 'Jane Doe',
          accountNumber: '20208000900123456789',
          branchCode: '0042',
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.payer.bankTransferData).toEqual({
      bankCode: 'NBU01',
      accountName: 'Jane Doe',
      accountNumber: '20208000900123456789',
      branchCode: '0042',
    });
  });

  it('when the order uses an asset code, then no token standard is needed; a renamed code is accepted and answered with its current name', async () => {
    const current = await create(anOrderRequest({ amount: '10', currency: 'USDT_TRON' }));
    expect(current.status).toBe(201);
    const renamed = await create(anOrderRequest({ amount: '10', currency: 'USDTTRC' }));
    expect(renamed.status).toBe(201);
    expect(renamed.body.order.cost.currency).toBe('USDT_TRON');
  });

  it('when the merchant balance is fiat, then its token standard is ignored', async () => {
    const res = await create({
      ...anOrderRequest(),
      recipient: { merchantBalance: { currency: 'EUR', tokenStandard: 'TRC20' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.recipient).toEqual({ merchantBalance: { currency: 'EUR' } });
  });

  const withCost = (cost: Record<string, unknown>) => {
    const body = anOrderRequest();
    Object.assign(body.order.cost, cost);
    return body;
  };

  it.each([
    [
      'walletType without instrumentType = wallet',
      'paymentSettings.walletType',
      { ...anOrderRequest(), paymentSettings: { walletType: 'personal' } },
    ],
    [
      'walletType with instrumentType card',
      'paymentSettings.walletType',
      { ...anOrderRequest(), instrumentType: 'card', paymentSettings: { walletType: 'personal' } },
    ],
    [
      'a walletType that is neither personal nor company',
      'paymentSettings.walletType',
      { ...anOrderRequest(), instrumentType: 'wallet', paymentSettings: { walletType: 'family' } },
    ],
    ['an unknown instrument type', 'instrumentType', { ...anOrderRequest(), instrumentType: 'cheque' }],
    [
      'a token-based coin without tokenStandard',
      'order.cost.tokenStandard',
      withCost({ currency: 'USDT', amount: '10' }),
    ],
    [
      'a tokenStandard on a native coin',
      'order.cost.tokenStandard',
      withCost({ currency: 'BTC', amount: '0.1', tokenStandard: 'ERC20' }),
    ],
    [
      'an unknown token standard',
      'order.cost.tokenStandard',
      withCost({ currency: 'USDT', amount: '10', tokenStandard: 'SPL' }),
    ],
    ['a tokenStandard on a fiat currency', 'order.cost.tokenStandard', withCost({ tokenStandard: 'TRC20' })],
    [
      'an asset code with another network as tokenStandard',
      'order.cost.tokenStandard',
      withCost({ currency: 'USDT_TRON', amount: '10', tokenStandard: 'ERC20' }),
    ],
    [
      'merchantBalance without currency',
      'recipient.merchantBalance.currency',
      { ...anOrderRequest(), recipient: { merchantBalance: { tokenStandard: 'TRC20' } } },
    ],
    [
      'merchantBalance with a token and no tokenStandard',
      'recipient.merchantBalance.tokenStandard',
      { ...anOrderRequest(), recipient: { merchantBalance: { currency: 'USDT' } } },
    ],
    [
      'bankTransferData without instrumentType = bank_transfer',
      'payer.bankTransferData',
      { ...anOrderRequest(), payer: { bankTransferData: { bankCode: 'X' } } },
    ],
    [
      'bankTransferData with a non-string member',
      'payer.bankTransferData',
      { ...anOrderRequest(), instrumentType: 'bank_transfer', payer: { bankTransferData: { bankCode: 7 } } },
    ],
    [
      'walletData with an unknown member',
      'payer.walletData.pin',
      { ...anOrderRequest(), payer: { walletData: { pin: '1234' } } },
    ],
  ])('when an order has %s, then it is a 400 naming %s and nothing is stored', async (_what, path, body) => {
    const before = await orderCount();
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation-error');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await orderCount()).toBe(before);
  });

  it('when anything tries to store the removed status rejected, then the database refuses it', async () => {
    await expect(
      db.query(
        `INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence) VALUES (gen_random_uuid(), gen_random_uuid(), 'x', 'rejected', 1, 1, 'USD', 1)`,
      ),
    ).rejects.toThrow(/orders_status/);
  });
});
