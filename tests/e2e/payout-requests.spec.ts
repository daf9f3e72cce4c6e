import { Client } from 'pg';
import { http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { SandboxPayments } from '../../apps/provider-sandbox/src/sandbox-payments';
import { aPayoutRequest, payoutsOf, TRON_ADDRESS, withPayoutMethods } from '../support/transfers';

/**
 * What a payout request must carry to be taken (the gateway and the methods service, before
 * anything is stored or sent): the currency rules of payout.cost, the payout method and the payee,
 * and bad input that changes nothing. The payout's way to the provider and back: payouts.spec.ts.
 */
describe('payout requests: checked before anything is stored or sent', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start();
    [shop, other] = [await aShop(stack.gateway!.url), await aShop(stack.gateway!.url, 'Other Shop')];
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    await withPayoutMethods(stack.gateway!.url, other.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const { post, get, create, until } = payoutsOf(gw, () => shop);

  describe('currency rules of payout.cost (the same as order.cost)', () => {
    it.each([
      ['a token-based coin without a token standard', 'payout.cost.tokenStandard', { currency: 'USDT', amount: '10' }],
      [
        'fiat with a token standard',
        'payout.cost.tokenStandard',
        { currency: 'USD', amount: '10.00', tokenStandard: 'TRC20' },
      ],
      [
        'an asset code with another network as token standard',
        'payout.cost.tokenStandard',
        { currency: 'USDT_TRON', amount: '10', tokenStandard: 'ERC20' },
      ],
      ['an unknown currency', 'payout.cost.currency', { currency: 'XXX1', amount: '10' }],
      ['more decimals than the currency has', 'payout.cost.amount', { currency: 'USD', amount: '10.001' }],
      ['an amount as a JSON number', 'payout.cost.amount', { currency: 'USD', amount: 10 }],
    ])('when %s, then 400 names %s and nothing is stored', async (_when, path, cost) => {
      const body = aPayoutRequest();
      (body.payout as Record<string, unknown>).cost = cost;
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
      const stored = await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [
        body.payout.merchantPayoutId,
      ]);
      expect(stored.rowCount).toBe(0);
    });

    it('when USDT carries its token standard and cryptoTokenStandard is given, then both are kept and answered as given', async () => {
      const created = await create({
        method: 'usdt-payout',
        currency: 'USDT',
        tokenStandard: 'TRC20',
        amount: '15.5',
        payout: { cryptoTokenStandard: 'ERC20' },
        payee: { walletAddress: TRON_ADDRESS },
      });
      expect(created.payout).toMatchObject({
        cost: { amount: '15.5', currency: 'USDT', tokenStandard: 'TRC20' },
        cryptoTokenStandard: 'ERC20',
      });
      expect((await get(created.id)).body.payout.cryptoTokenStandard).toBe('ERC20');
    });

    it('when the payout uses a renamed asset code, then no token standard is needed and it is answered under its current name', async () => {
      const created = await create({
        method: 'usdt-payout',
        currency: 'USDTTRC',
        amount: '5',
        payee: { walletAddress: TRON_ADDRESS },
      });
      expect(created.payout.cost).toEqual({ amount: '5', currency: 'USDT_TRON' });
    });
  });

  describe('the payout method and the payee are checked before anything is stored or sent', () => {
    /** Sends a payout that must be refused, and proves it left no trace: no row, no dispatch, nothing at the sandbox. */
    async function refused(body: ReturnType<typeof aPayoutRequest>, status: number) {
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const rows = await db.query('SELECT id FROM payouts.payouts WHERE merchant_payout_id = $1', [
        body.payout.merchantPayoutId,
      ]);
      expect(rows.rowCount).toBe(0);
      const sandbox = stack.sandbox!.app.get(SandboxPayments);
      expect(sandbox.ofKind('payout').filter((p) => p.amount === body.payout.cost.amount)).toEqual([]);
      return res.body;
    }

    it('when a required payee field is missing, another has the wrong format and a third is unknown, then 400 names each and nothing is sent', async () => {
      const problem = await refused(
        aPayoutRequest({ amount: '77.71', payee: { cardNumber: '4111111111111111', nickname: 'jd' } }),
        400,
      );
      expect(problem.type).toBe('/problems/validation-error');
      expect(problem.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'payee.cardHolder',
        'payee.cardNumber',
        'payee.nickname',
      ]);
      expect(problem.errors).toEqual(expect.arrayContaining([{ path: 'payee.cardHolder', message: 'is required' }]));
      expect(JSON.stringify(problem)).not.toContain('4111111111111111');
    });

    it('when the card number fails its check digit, then 400 says so on payee.cardNumber', async () => {
      const problem = await refused(
        aPayoutRequest({ amount: '77.72', payee: { cardNumber: '8600123456789013', cardHolder: 'JANE DOE' } }),
        400,
      );
      expect(problem.errors).toEqual([{ path: 'payee.cardNumber', message: expect.stringContaining('check digit') }]);
    });

    it('when the shop has no such payout method, then 422 names payout.method and nothing is sent', async () => {
      const problem = await refused(aPayoutRequest({ amount: '77.73', method: 'paypal-payout' }), 422);
      expect(problem).toMatchObject({
        type: '/problems/unprocessable',
        errors: [expect.objectContaining({ path: 'payout.method' })],
      });
    });

    it.each([
      ['a currency the method does not offer', 'payout.cost.currency', { currency: 'EUR', amount: '77.74' }],
      ["an amount above the method's limit", 'payout.cost.amount', { currency: 'USD', amount: '5000.01' }],
    ])('when the payout asks for %s, then 422 names %s', async (_when, path, cost) => {
      const body = aPayoutRequest();
      body.payout.cost = cost;
      const problem = await refused(body, 422);
      expect(problem.errors).toEqual([expect.objectContaining({ path })]);
    });

    it("when the instrumentType is not the method's, then 400 names instrumentType", async () => {
      const problem = await refused(
        aPayoutRequest({ amount: '77.75', extra: { instrumentType: 'bank_transfer' } }),
        400,
      );
      expect(problem.errors).toEqual([
        { path: 'instrumentType', message: expect.stringContaining('uzcard-payout (card)') },
      ]);
    });

    it('when a wallet payout asks for a wallet type the method does not offer, then 422 names walletType', async () => {
      const body = aPayoutRequest({
        amount: '77.76',
        method: 'wallet-payout',
        payee: { walletId: 'w-1', companyName: 'ACME', taxId: '12345' },
        extra: { instrumentType: 'wallet', walletType: 'company' },
      });
      const problem = await refused(body, 422);
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'walletType' })]);
    });

    it('when a wallet payout carries the fields of its wallet type, then it is created with the walletType and sent', async () => {
      const created = await create({
        amount: '12.99',
        method: 'wallet-payout',
        payee: { walletId: 'w-1', firstName: 'Jane', lastName: 'Doe' },
        extra: { instrumentType: 'wallet', walletType: 'personal' },
      });
      expect(created).toMatchObject({
        instrumentType: 'wallet',
        walletType: 'personal',
        payee: { walletId: 'w-1', firstName: 'Jane', lastName: 'Doe' },
      });
      await until(created.id, 'in_progress');
    });
  });

  describe('bad input changes nothing', () => {
    it('when walletType comes without instrumentType = wallet, then 400 names walletType', async () => {
      const body = aPayoutRequest({ extra: { walletType: 'personal', instrumentType: 'card' } });
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: 'walletType', message: 'applies only with instrumentType = wallet' }]);
      expect(
        (await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [body.payout.merchantPayoutId]))
          .rowCount,
      ).toBe(0);
    });

    it('when an unknown field, a bad walletType or a non-http callbackUrl is sent, then 400 names each', async () => {
      const body = aPayoutRequest({
        extra: { cryptoPayment: {}, walletType: 'family', callbackUrl: 'ftp://x.example/cb' },
      });
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'callbackUrl',
        'cryptoPayment',
        'walletType',
      ]);
    });

    it('when the merchantPayoutId is used again, then 409 names the existing payout and nothing new is stored', async () => {
      const first = await create();
      const res = await post(aPayoutRequest({ merchantPayoutId: first.payout.merchantPayoutId, amount: '1.99' }));
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ payoutId: first.id, errors: [{ path: 'payout.merchantPayoutId' }] });
      expect(
        (
          await db.query('SELECT count(*)::int AS n FROM payouts.payouts WHERE merchant_payout_id = $1', [
            first.payout.merchantPayoutId,
          ])
        ).rows[0].n,
      ).toBe(1);
    });

    it('when another shop asks for the payout, or for a malformed id, then 404 exactly as for an unknown one', async () => {
      const created = await create();
      const foreign = await get(created.id, other);
      const unknown = await get('00000000-0000-4000-8000-000000000000', other);
      const malformed = await get('not-a-uuid', other);
      expect([foreign.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
      expect(foreign.body.type).toBe(unknown.body.type);
      expect(foreign.body.type).toBe('/problems/not-found');
    });

    it('when the OpenAPI document is read, then it describes the payout and P2P routes with their bodies', async () => {
      const doc = (await http('GET', `${gw()}/docs/openapi.json`)).body;
      for (const path of [
        '/payouts',
        '/payouts/{payoutId}',
        '/api/v1/payouts',
        '/p2p',
        '/p2p/{id}',
        '/api/v1/p2p/{id}',
      ])
        expect(doc.paths[path]).toBeDefined();
      // payee and payout.method may be left out only for a payout via payment page (issue 20, decision 134).
      expect(doc.components.schemas.CreatePayoutDto.required).toEqual(['payout']);
      expect(doc.components.schemas.CreatePayoutDto.properties.payee.description).toMatch(/payout via payment page/);
      expect(doc.components.schemas.PayoutDetailsDto.properties.cryptoTokenStandard.example).toBe('TRC20');
    });

    it('when the payout is read under /api/v1, then it is the same payout', async () => {
      const created = await create();
      const res = await http('GET', `${gw()}/api/v1/payouts/${created.id}`, { token: shop.apiKey });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(created.id);
    });
  });
});
