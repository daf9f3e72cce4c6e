import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { MethodQueryTypes, ResolvedPayoutMethod, ResolvePayoutMethodQuery, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { checkPayee } from '@payments/methods-domain';
import { http, testBrokers, uniqueName } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';

const cardPayout = {
  code: 'uzcard-payout',
  instrumentType: 'card',
  cardBrands: ['humo', 'uzcard'],
  currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
  provider: 'sandbox',
};
const walletPayout = {
  code: 'wallet-payout',
  instrumentType: 'wallet',
  walletTypes: ['personal', 'company'],
  currencies: [{ currency: 'UZS' }],
  provider: 'sandbox',
};
const usdtPayout = {
  code: 'usdt-trc20',
  instrumentType: 'crypto',
  currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
  provider: 'sandbox',
};

describe('payment and payout methods per shop (spec 2.5, 4)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  let gw: string;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'methods'] });
    gw = stack.gateway!.url;
    shop = await aShop(gw, 'Methods Shop');
    other = await aShop(gw, 'Other Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    for (const [kind, body] of [
      ['payout', cardPayout],
      ['payout', walletPayout],
      ['payout', usdtPayout],
      [
        'payment',
        {
          code: 'cards',
          instrumentType: 'card',
          cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
          currencies: [{ currency: 'UZS' }, { currency: 'USD' }],
          provider: 'sandbox',
        },
      ],
      [
        'payment',
        {
          code: 'mobile',
          instrumentType: 'mobile_top_up',
          currencies: [{ currency: 'UZS', maxAmount: '1000000' }],
          provider: 'sandbox',
        },
      ],
      [
        'payment',
        { code: 'wallets', instrumentType: 'wallet', currencies: [{ currency: 'UZS' }], provider: 'sandbox' },
      ],
    ] as const) {
      const res = await ops('POST', `/ops/v1/shops/${shop.shopId}/${kind}-methods`, body);
      if (res.status !== 201) throw new Error(`seeding ${body.code}: ${res.status} ${res.text}`);
    }
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${opsUrlOf(gw)}${path}`, { token: TEST_OPS_TOKEN, body });
  const merchant = (method: string, path: string, body?: unknown, key = shop.apiKey) =>
    http(method, `${path.startsWith('/ops/') ? opsUrlOf(gw) : gw}${path}`, { token: key, body });
  const methodRows = async () =>
    Number(
      (
        await db.query(
          'SELECT (SELECT count(*) FROM methods.payment_methods) + (SELECT count(*) FROM methods.payout_methods) AS n',
        )
      ).rows[0].n,
    );
  const byCode = (list: { code: string }[], code: string) =>
    list.find((m) => m.code === code) as Record<string, unknown> | undefined;

  it('when operators configured payment methods, then the merchant lists them: brands on cards, walletTypes only where configured, mobile_top_up', async () => {
    for (const path of [`/shops/${shop.shopId}/payment-methods`, `/api/v1/shops/${shop.shopId}/payment-methods`]) {
      const res = await merchant('GET', path);
      expect(res.status).toBe(200);
      expect(res.body.shopId).toBe(shop.shopId);
      expect(res.body.methods.map((m: { code: string }) => m.code)).toEqual(['cards', 'mobile', 'wallets']);
      expect(byCode(res.body.methods, 'cards')).toMatchObject({
        instrumentType: 'card',
        cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
      });
      expect(byCode(res.body.methods, 'mobile')).toMatchObject({
        instrumentType: 'mobile_top_up',
        currencies: [{ currency: 'UZS', maxAmount: '1000000' }],
      });
      expect(byCode(res.body.methods, 'wallets')).not.toHaveProperty('walletTypes');
      expect(byCode(res.body.methods, 'mobile')).not.toHaveProperty('cardBrands');
    }
  });

  it('when a payout method has wallet types, then they are listed on it and on no other method', async () => {
    for (const path of [`/payouts/payout-methods/${shop.shopId}`, `/api/v1/payouts/payout-methods/${shop.shopId}`]) {
      const res = await merchant('GET', path);
      expect(res.status).toBe(200);
      expect(byCode(res.body.methods, 'wallet-payout')).toMatchObject({
        instrumentType: 'wallet',
        walletTypes: ['personal', 'company'],
      });
      expect(byCode(res.body.methods, 'uzcard-payout')).toMatchObject({
        cardBrands: ['humo', 'uzcard'],
        currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
      });
      expect(byCode(res.body.methods, 'uzcard-payout')).not.toHaveProperty('walletTypes');
      expect(byCode(res.body.methods, 'usdt-trc20')).toMatchObject({
        instrumentType: 'crypto',
        currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
      });
    }
  });

  it("when the shopId in the path is another shop's, then 403; when it is not a UUID, then 400 naming shopId", async () => {
    for (const path of [`/shops/${other.shopId}/payment-methods`, `/payouts/payout-methods/${other.shopId}`]) {
      const res = await merchant('GET', path);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.type).toBe('/problems/forbidden');
    }
    for (const path of ['/shops/not-a-uuid/payment-methods', '/payouts/payout-methods/123']) {
      const res = await merchant('GET', path);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: 'shopId', message: expect.stringMatching(/UUID/) }]);
    }
  });

  it("when the other shop lists its own methods, then it sees none of this shop's", async () => {
    const res = await merchant('GET', `/payouts/payout-methods/${other.shopId}`, undefined, other.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ shopId: other.shopId, methods: [] });
  });

  it('when a merchant asks for the fields of a wallet payout, then the answer differs by walletType', async () => {
    const ask = (walletType?: string) =>
      merchant('POST', '/api/v1/payouts/fields', {
        payoutSettings: { method: 'wallet-payout', currency: 'UZS', ...(walletType ? { walletType } : {}) },
      });
    const personal = await ask('personal');
    const company = await ask('company');
    const none = await ask();
    expect(personal.status).toBe(200);
    expect(personal.body).toMatchObject({ method: 'wallet-payout', currency: 'UZS', walletType: 'personal' });
    expect(personal.body.fields.map((f: { path: string }) => f.path)).toEqual([
      'payee.walletId',
      'payee.firstName',
      'payee.lastName',
    ]);
    expect(company.body.fields.map((f: { path: string }) => f.path)).toEqual([
      'payee.walletId',
      'payee.companyName',
      'payee.taxId',
    ]);
    expect(none.body).not.toHaveProperty('walletType');
    expect(none.body.fields).toContainEqual(
      expect.objectContaining({ path: 'payee.walletHolderName', required: false }),
    );
  });

  it('when a merchant asks for the fields of the humo/uzcard card method and of USDT TRC20, then they carry formats and patterns', async () => {
    const card = await merchant('POST', '/payouts/fields', {
      payoutSettings: { method: 'uzcard-payout', currency: 'UZS' },
    });
    expect(card.status).toBe(200);
    expect(card.body.fields[0]).toEqual({
      path: 'payee.cardNumber',
      type: 'string',
      format: 'pan',
      pattern: '^(9860[0-9]{12}|8600[0-9]{12})$',
      required: true,
      description: expect.any(String),
    });
    const usdt = await merchant('POST', '/payouts/fields', {
      payoutSettings: { method: 'usdt-trc20', currency: 'USDT', tokenStandard: 'TRC20' },
    });
    expect(usdt.status).toBe(200);
    expect(usdt.body.fields).toEqual([
      expect.objectContaining({ path: 'payee.walletAddress', format: 'tron-address' }),
    ]);
    // The asset code names the same money, so the same method answers.
    const asset = await merchant('POST', '/payouts/fields', {
      payoutSettings: { method: 'usdt-trc20', currency: 'USDT_TRON' },
    });
    expect(asset.status).toBe(200);
    expect(asset.body.fields[0].format).toBe('tron-address');
  });

  it.each([
    [
      'a method the shop lacks',
      { method: 'paypal', currency: 'UZS' },
      'payoutSettings.method',
      /no payout method "paypal"/,
    ],
    [
      'a currency the method does not offer',
      { method: 'uzcard-payout', currency: 'USD' },
      'payoutSettings.currency',
      /does not offer USD/,
    ],
    [
      'another network of the token',
      { method: 'usdt-trc20', currency: 'USDT', tokenStandard: 'ERC20' },
      'payoutSettings.currency',
      /ERC20/,
    ],
    [
      'a wallet type on a card method',
      { method: 'uzcard-payout', currency: 'UZS', walletType: 'company' },
      'payoutSettings.walletType',
      /only to wallet/,
    ],
  ])('when the payout settings name %s, then 422 naming the field', async (_what, payoutSettings, path, message) => {
    const res = await merchant('POST', '/payouts/fields', { payoutSettings });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.type).toBe('/problems/unprocessable');
    expect(res.body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it("when another shop asks for this shop's method, then it does not exist for it (422)", async () => {
    const res = await merchant(
      'POST',
      '/payouts/fields',
      { payoutSettings: { method: 'uzcard-payout', currency: 'UZS' } },
      other.apiKey,
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('payoutSettings.method');
  });

  it.each([
    ['no payoutSettings', {}, ['payoutSettings']],
    [
      'an unknown currency and wallet type',
      { payoutSettings: { method: 'x', currency: 'XXX', walletType: 'family' } },
      ['payoutSettings.currency', 'payoutSettings.walletType'],
    ],
    [
      'a token without its standard',
      { payoutSettings: { method: 'usdt-trc20', currency: 'USDT' } },
      ['payoutSettings.tokenStandard'],
    ],
    [
      'an unknown member',
      { payoutSettings: { method: 'uzcard-payout', currency: 'UZS', instrumentType: 'card' } },
      ['payoutSettings.instrumentType'],
    ],
  ])('when the fields request has %s, then 400 naming each field', async (_what, body, paths) => {
    const res = await merchant('POST', '/payouts/fields', body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation-error');
    expect([...new Set(res.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual([...paths].sort());
  });

  it.each([
    ['brands on a wallet method', { ...walletPayout, code: 'w2', cardBrands: ['visa'] }, ['cardBrands']],
    ['wallet types on a card method', { ...cardPayout, code: 'c2', walletTypes: ['personal'] }, ['walletTypes']],
    [
      'an unknown brand and instrument',
      { ...cardPayout, code: 'c3', instrumentType: 'cash', cardBrands: ['diners'] },
      ['instrumentType', 'cardBrands'],
    ],
    [
      'a limit beyond the currency scale',
      { ...cardPayout, code: 'c4', currencies: [{ currency: 'UZS', minAmount: '10.00', maxAmount: '9.999' }] },
      ['currencies[0].maxAmount'],
    ],
    [
      'min above max',
      { ...cardPayout, code: 'c5', currencies: [{ currency: 'UZS', minAmount: '10', maxAmount: '9' }] },
      ['currencies[0].minAmount'],
    ],
    [
      'a limit as a JSON number',
      { ...cardPayout, code: 'c6', currencies: [{ currency: 'UZS', maxAmount: 100 }] },
      ['currencies[0].maxAmount'],
    ],
    [
      'a token without its standard',
      { ...usdtPayout, code: 'u2', currencies: [{ currency: 'USDT' }] },
      ['currencies[0].tokenStandard'],
    ],
    [
      'fiat on a crypto method',
      { ...usdtPayout, code: 'u3', currencies: [{ currency: 'USD' }] },
      ['currencies[0].currency'],
    ],
    ['a bad code and an unknown member', { ...cardPayout, code: 'Bad Code!', fee: '1' }, ['code', 'fee']],
  ])(
    'when an operator creates a method with %s, then 400 naming each field and nothing is stored',
    async (_what, body, paths) => {
      const before = await methodRows();
      const res = await ops('POST', `/ops/v1/shops/${shop.shopId}/payout-methods`, body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect([...new Set(res.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual([...paths].sort());
      expect(await methodRows()).toBe(before);
    },
  );

  it('when an operator reuses a code in the same list, then 409; the other direction may use it', async () => {
    const dup = await ops('POST', `/ops/v1/shops/${shop.shopId}/payout-methods`, cardPayout);
    expect(dup.status).toBe(409);
    expect(dup.body.errors).toEqual([{ path: 'code', message: expect.any(String) }]);
    const otherList = await ops('POST', `/ops/v1/shops/${shop.shopId}/payment-methods`, { ...cardPayout });
    expect(otherList.status).toBe(201);
    expect((await ops('DELETE', `/ops/v1/shops/${shop.shopId}/payment-methods/${otherList.body.id}`)).status).toBe(204);
  });

  it('when an operator names a renamed asset code, then the method is stored and answered with its current name', async () => {
    const res = await ops('POST', `/ops/v1/shops/${shop.shopId}/payment-methods`, {
      code: 'usdt-old-name',
      instrumentType: 'crypto',
      currencies: [{ currency: 'USDTTRC', minAmount: '1.5' }],
      provider: 'sandbox',
    });
    expect(res.status).toBe(201);
    expect(res.body.currencies).toEqual([{ currency: 'USDT_TRON', minAmount: '1.5' }]);
    expect((await ops('DELETE', `/ops/v1/shops/${shop.shopId}/payment-methods/${res.body.id}`)).status).toBe(204);
  });

  it('when the shop does not exist, then the operator routes answer 404', async () => {
    const res = await ops('POST', `/ops/v1/shops/${randomUUID()}/payout-methods`, cardPayout);
    expect(res.status).toBe(404);
    expect((await ops('GET', `/ops/v1/shops/${randomUUID()}/payment-methods`)).status).toBe(404);
  });

  it('when a merchant key calls the operator routes, then 401 and nothing changes', async () => {
    const before = await methodRows();
    const create = await merchant('POST', `/ops/v1/shops/${shop.shopId}/payout-methods`, {
      ...cardPayout,
      code: 'sneaky',
    });
    expect(create.status).toBe(401);
    expect((await merchant('GET', `/ops/v1/shops/${shop.shopId}/payment-methods`)).status).toBe(401);
    expect(await methodRows()).toBe(before);
  });

  it('when an operator disables a method, then merchants no longer see it, operators still do, and payouts by it are refused; enabling brings it back', async () => {
    const created = await ops('POST', `/ops/v1/shops/${shop.shopId}/payout-methods`, {
      ...walletPayout,
      code: 'temp-wallet',
      walletTypes: [],
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('walletTypes');
    const off = await ops('PATCH', `/ops/v1/shops/${shop.shopId}/payout-methods/${created.body.id}`, {
      enabled: false,
      walletTypes: ['company'],
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, walletTypes: ['company'] });
    const listed = await merchant('GET', `/payouts/payout-methods/${shop.shopId}`);
    expect(byCode(listed.body.methods, 'temp-wallet')).toBeUndefined();
    const opsList = await ops('GET', `/ops/v1/shops/${shop.shopId}/payout-methods`);
    expect(byCode(opsList.body.methods, 'temp-wallet')).toMatchObject({ enabled: false });
    const fields = await merchant('POST', '/payouts/fields', {
      payoutSettings: { method: 'temp-wallet', currency: 'UZS' },
    });
    expect(fields.status).toBe(422);
    expect(fields.body.detail).toMatch(/disabled/);
    const on = await ops('PATCH', `/ops/v1/shops/${shop.shopId}/payout-methods/${created.body.id}`, { enabled: true });
    expect(on.status).toBe(200);
    expect(
      byCode((await merchant('GET', `/payouts/payout-methods/${shop.shopId}`)).body.methods, 'temp-wallet'),
    ).toMatchObject({ walletTypes: ['company'] });
    // Each change is audited with the method as it was and as it became.
    const audit = await ops('GET', `/ops/v1/audit?action=payout-method.update&objectId=${created.body.id}`);
    expect(audit.body.items.map((r: { before: unknown; after: unknown }) => [r.before, r.after])).toEqual([
      [expect.objectContaining({ enabled: false }), expect.objectContaining({ enabled: true })],
      [expect.objectContaining({ enabled: true }), expect.objectContaining({ enabled: false })],
    ]);
  });

  it('when an update would leave the method invalid, then 400 naming the field and the method is unchanged', async () => {
    const list = await ops('GET', `/ops/v1/shops/${shop.shopId}/payout-methods`);
    const card = byCode(list.body.methods, 'uzcard-payout')!;
    const res = await ops('PATCH', `/ops/v1/shops/${shop.shopId}/payout-methods/${card.id}`, { cardBrands: [] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'cardBrands', message: expect.any(String) }]);
    const row = await db.query('SELECT card_brands FROM methods.payout_methods WHERE id = $1', [card.id]);
    expect(row.rows[0].card_brands).toEqual(['humo', 'uzcard']);
  });

  it('when an operator deletes a method, then it is gone; deleting it again is 404', async () => {
    const created = await ops('POST', `/ops/v1/shops/${shop.shopId}/payment-methods`, {
      code: 'to-delete',
      instrumentType: 'bank_transfer',
      currencies: [{ currency: 'EUR' }],
      provider: 'sandbox',
    });
    expect(created.status).toBe(201);
    expect((await ops('DELETE', `/ops/v1/shops/${shop.shopId}/payment-methods/${created.body.id}`)).status).toBe(204);
    expect((await db.query('SELECT 1 FROM methods.payment_methods WHERE id = $1', [created.body.id])).rowCount).toBe(0);
    expect((await ops('DELETE', `/ops/v1/shops/${shop.shopId}/payment-methods/${created.body.id}`)).status).toBe(404);
    // Another shop's method id is not this shop's to delete.
    const list = await ops('GET', `/ops/v1/shops/${shop.shopId}/payout-methods`);
    const card = byCode(list.body.methods, 'uzcard-payout')!;
    expect((await ops('DELETE', `/ops/v1/shops/${other.shopId}/payout-methods/${card.id}`)).status).toBe(404);
  });

  describe('method.payout.resolve over Kafka (what the payouts service asks)', () => {
    let client: KafkaRequestClient;

    beforeAll(async () => {
      client = new KafkaRequestClient(
        { brokers: testBrokers(), clientId: 'methods-spec', topicPrefix: stack.prefix, replicationFactor: 1 },
        { requester: 'gateway', instanceId: uniqueName('payouts-client') },
        15000,
      );
      await client.start();
    });
    afterAll(async () => client?.stop());

    const resolve = (q: Omit<ResolvePayoutMethodQuery, 'shopId'>, shopId = shop.shopId) =>
      client.request<ResolvedPayoutMethod>(Topics.methodsQueries, shopId, MethodQueryTypes.payoutResolve, {
        shopId,
        ...q,
      });

    it('when the payout fits the method, then the method and its fields come back, and checkPayee uses them', async () => {
      const reply = await resolve({ method: 'uzcard-payout', currency: 'UZS', amount: '150000.00' });
      expect(reply.ok).toBe(true);
      if (!reply.ok) return;
      expect(reply.result.method).toMatchObject({
        code: 'uzcard-payout',
        instrumentType: 'card',
        cardBrands: ['humo', 'uzcard'],
      });
      expect(checkPayee(reply.result.fields, { cardNumber: '8600123456789012', cardHolder: 'JANE DOE' })).toEqual([]);
      expect(checkPayee(reply.result.fields, { cardNumber: '4111111111111111' })).toEqual([
        { path: 'payee.cardNumber', message: expect.stringMatching(/9860/) },
        { path: 'payee.cardHolder', message: 'is required' },
      ]);
    });

    it('when the wallet type is company, then the fields are the company ones', async () => {
      const reply = await resolve({ method: 'wallet-payout', currency: 'UZS', walletType: 'company', amount: '1' });
      expect(reply.ok && reply.result.fields.map((f) => f.path)).toEqual([
        'payee.walletId',
        'payee.companyName',
        'payee.taxId',
      ]);
    });

    it('when the same create command arrives twice (a resend), then one method exists and both answers are that method', async () => {
      const command = {
        methodId: randomUUID(),
        shopId: shop.shopId,
        direction: 'payout',
        code: 'resent-topup',
        instrumentType: 'mobile_top_up',
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      };
      const first = await client.request<{ id: string }>(
        Topics.methodsQueries,
        shop.shopId,
        MethodQueryTypes.create,
        command,
      );
      const second = await client.request<{ id: string }>(
        Topics.methodsQueries,
        shop.shopId,
        MethodQueryTypes.create,
        command,
      );
      expect(first).toMatchObject({ ok: true, result: { id: command.methodId } });
      expect(second).toEqual(first);
      const rows = await db.query(
        'SELECT count(*)::int AS n FROM methods.payout_methods WHERE shop_id = $1 AND code = $2',
        [shop.shopId, 'resent-topup'],
      );
      expect(rows.rows[0].n).toBe(1);
    });

    it.each([
      ['a method the shop lacks', 'payout.method', { method: 'nope', currency: 'UZS', amount: '1000' }],
      ['a currency not offered', 'payout.cost.currency', { method: 'uzcard-payout', currency: 'EUR', amount: '1000' }],
      [
        'a wallet type not offered',
        'walletType',
        {
          method: 'usdt-trc20',
          currency: 'USDT',
          tokenStandard: 'TRC20',
          walletType: 'personal' as const,
          amount: '100',
        },
      ],
      [
        'an amount below the minimum',
        'payout.cost.amount',
        { method: 'uzcard-payout', currency: 'UZS', amount: '999.99' },
      ],
      [
        'an amount above the maximum',
        'payout.cost.amount',
        { method: 'uzcard-payout', currency: 'UZS', amount: '5000000.01' },
      ],
      [
        'an amount below the token minimum',
        'payout.cost.amount',
        { method: 'usdt-trc20', currency: 'USDT_TRON', amount: '9.999999' },
      ],
    ])('when the payout has %s, then unprocessable naming %s', async (_what, path, q) => {
      const reply = await resolve(q);
      expect(reply).toMatchObject({ ok: false, error: { code: 'unprocessable', errors: [{ path }] } });
    });
  });
});
