import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { eventually, http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { withPayoutMethods } from '../support/transfers';

/**
 * Payout via payment page (issue 20) through the running services: with the shop's operator
 * setting on, a payout that carries no payee needs only merchantPayoutId and cost, gets its
 * method chosen (paymentSettingsAlias, else by amount and currency, else 1-03-02), stays
 * registered and undispatched, and answers data.payoutLink and data.expiresAt.
 */
describe('payout via payment page: a payout without a payee answers a link for its recipient', () => {
  let stack: TestStack;
  let db: Client;
  let shop: TestShop;
  let plain: TestShop;

  beforeAll(async () => {
    stack = await TestStack.start({ checkout: true, extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '0' } });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    shop = await aShop(gw(), 'Chorsu Payouts');
    plain = await aShop(gw(), 'Plain Payouts');
    await withPayoutMethods(gw(), shop.shopId);
    await withPayoutMethods(gw(), plain.shopId);
    const res = await http('PATCH', `${gw()}/ops/v1/shops/${shop.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { payoutViaPaymentPage: true, redirectDomains: ['merchant.example.com'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.payoutViaPaymentPage).toBe(true);
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  let counter = 0;
  const minimal = (amount: string, currency: string, extra: Record<string, unknown> = {}) => ({
    payout: { merchantPayoutId: `hp-${Date.now()}-${++counter}`, cost: { amount, currency } },
    ...extra,
  });
  const post = (body: unknown, s: TestShop = shop) => http('POST', `${gw()}/payouts`, { token: s.apiKey, body });
  const dispatches = async (id: string) =>
    (await db.query('SELECT count(*)::int AS n FROM payouts.provider_dispatches WHERE payout_id = $1', [id])).rows[0].n;

  it('when the operator reads the shop settings, then payoutViaPaymentPage is there, off for a new shop', async () => {
    const on = await http('GET', `${gw()}/ops/v1/shops/${shop.shopId}/settings`, { token: TEST_OPS_TOKEN });
    expect(on.body.payoutViaPaymentPage).toBe(true);
    const off = await http('GET', `${gw()}/ops/v1/shops/${plain.shopId}/settings`, { token: TEST_OPS_TOKEN });
    expect(off.body.payoutViaPaymentPage).toBe(false);
  });

  it('when the setting is off and a payout lacks its payee, then 400 names payee and payout.method and nothing is made', async () => {
    const body = minimal('100.00', 'USD');
    const res = await post(body, plain);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['payee', 'payout.method']);
    const rows = await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [
      body.payout.merchantPayoutId,
    ]);
    expect(rows.rowCount).toBe(0);
  });

  it('when the setting is on and only merchantPayoutId and cost are given, then the payout waits registered with a live link stored only hashed', async () => {
    const res = await post(
      minimal('120.50', 'USD', {
        timeLimit: 600,
        paymentPageDesign: { locale: 'uz' },
        redirectUrls: { success: 'https://merchant.example.com/paid', failure: 'https://pay.merchant.example.com/no' },
      }),
    );
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p).toMatchObject({
      status: 'registered',
      statusCode: '1-01-03',
      payout: { method: 'uzcard-payout', cost: { amount: '120.50', currency: 'USD' } },
      instrumentType: 'card',
      payee: {},
    });
    expect(p.data.payoutLink).toMatch(new RegExp(`^${stack.checkout!.url}/payout/p[A-Za-z0-9_-]{64}$`));
    const left = Date.parse(p.data.expiresAt) - Date.now();
    expect(left).toBeGreaterThan(500_000);
    expect(left).toBeLessThanOrEqual(600_000);
    const token = p.data.payoutLink.split('/').pop();
    const row = (await db.query('SELECT * FROM payouts.payouts WHERE id = $1', [p.id])).rows[0];
    expect(row.link_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(row.page_locale).toBe('uz');
    expect(row.redirect_urls).toEqual({
      success: 'https://merchant.example.com/paid',
      failure: 'https://pay.merchant.example.com/no',
    });
    expect(JSON.stringify(row)).not.toContain(token);
    const again = await http('GET', `${gw()}/payouts/${p.id}`, { token: shop.apiKey });
    expect(again.body.data).toEqual(p.data);
    const found = await http('GET', `${gw()}/payouts?merchantPayoutId=${p.payout.merchantPayoutId}`, {
      token: shop.apiKey,
    });
    expect(found.body.data).toEqual(p.data);
    expect(await dispatches(p.id)).toBe(0);
  });

  it('when no method is named, then the first of the shop payout methods that fits amount and currency is chosen', async () => {
    // uzcard-payout takes USD up to 5000.00: 6000 USD goes to the wallet method.
    const big = await post(minimal('6000.00', 'USD'));
    expect(big.status).toBe(201);
    expect(big.body.payout.method).toBe('wallet-payout');
    const usdt = await post({
      payout: {
        merchantPayoutId: `hp-usdt-${Date.now()}`,
        cost: { amount: '15', currency: 'USDT', tokenStandard: 'TRC20' },
      },
    });
    expect(usdt.status).toBe(201);
    expect(usdt.body.payout.method).toBe('usdt-payout');
  });

  it('when paymentSettingsAlias names a method, then that method is used', async () => {
    const res = await post(minimal('50.00', 'USD', { paymentSettingsAlias: 'wallet-payout' }));
    expect(res.status).toBe(201);
    expect(res.body.payout.method).toBe('wallet-payout');
    expect(res.body.data.payoutLink).toBeDefined();
  });

  it('when no payout method of the shop fits, then 422 with 1-03-02 names payout.cost and nothing is made', async () => {
    const body = minimal('10.00', 'EUR');
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.body.statusCode).toBe('1-03-02');
    expect(res.body.errors[0].path).toBe('payout.cost');
    const rows = await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [
      body.payout.merchantPayoutId,
    ]);
    expect(rows.rowCount).toBe(0);
  });

  it('when a redirect URL is off the allow-list or timeLimit is out of range, then 400 names the field', async () => {
    const evil = await post(minimal('10.00', 'USD', { redirectUrls: { success: 'https://evil.example/x' } }));
    expect(evil.status).toBe(400);
    expect(evil.body.errors[0].path).toBe('redirectUrls.success');
    const short = await post(minimal('10.00', 'USD', { timeLimit: 5 }));
    expect(short.status).toBe(400);
    expect(short.body.errors[0].path).toBe('timeLimit');
  });

  it('when a payout with its payee is requested from a shop with the setting on, then it is dispatched as before, without a link', async () => {
    const res = await post({
      ...minimal('100.99', 'USD'),
      payout: {
        merchantPayoutId: `hp-h2h-${Date.now()}`,
        method: 'uzcard-payout',
        cost: { amount: '100.99', currency: 'USD' },
      },
      payee: { cardNumber: '8600123456789012', cardHolder: 'JANE DOE' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toBeUndefined();
    await eventually(async () => ((await dispatches(res.body.id)) === 1 ? true : undefined), 15000, 'dispatched');
  });
});
