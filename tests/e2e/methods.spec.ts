// Methods per shop as merchants see them: the lists (brands, wallet types), which shop may ask,
// the fields a payout needs (by wallet type, card brand, token standard) and bad requests for them.
import { TestShop } from '../support/merchant';
import { methodsStack } from '../support/methods-stack';

describe('payment and payout methods per shop (spec 2.5, 4)', () => {
  const { started, merchant, byCode } = methodsStack();
  let shop: TestShop;
  let other: TestShop;
  beforeAll(() => {
    ({ shop, other } = started());
  });

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
});
