// Methods per shop as operators manage them: validation of what they configure, codes, renamed
// assets, unknown shops, merchant keys refused, disable/enable, updates and deletes.
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { TestShop } from '../support/merchant';
import { cardPayout, methodsStack, usdtPayout, walletPayout } from '../support/methods-stack';

describe('payment and payout methods per shop (spec 2.5, 4)', () => {
  const { started, ops, merchant, methodRows, byCode } = methodsStack();
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  beforeAll(() => {
    ({ shop, other, db } = started());
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
});
