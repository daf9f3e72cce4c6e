import { randomUUID } from 'node:crypto';
import { http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * Issue 29 item 6 (decisions 308, 309): an admin posts a manual adjustment to a shop's available
 * balance through the backoffice (`POST /ops/v1/shops/{shopId}/adjustments`, carried to the ledger
 * on `ledger.ops-commands` with the operator), audited with the operator, reason, the balance before
 * and the adjustment after; a debit available cannot cover is a 422 naming `amount` that posts
 * nothing; bad input a 400 naming the field; a retry with the same Idempotency-Key posts once; an
 * operator or viewer is refused with 403. Operators read the balance and the statement. HTTP only.
 */
describe('operators post audited manual adjustments to a shop’s balance', () => {
  let stack: TestStack;
  let shop: TestShop;
  let adminOp: { id: string; token: string };
  let operatorOp: { id: string; token: string };
  let viewer: { id: string; token: string };

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'ledger'] });
    shop = await aShop(stack.gateway!.url, 'Adjusted Shop');
    const anOperator = async (name: string, role: string) => {
      const created = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
        token: TEST_OPS_TOKEN,
        body: { name, role },
      });
      expect(created.status).toBe(201);
      return created.body as { id: string; token: string };
    };
    adminOp = await anOperator('Ada Admin', 'admin');
    operatorOp = await anOperator('Oscar Operator', 'operator');
    viewer = await anOperator('Vic Viewer', 'viewer');
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const ops = (token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token, body, headers });
  const adjust = (token: string, body: unknown, key?: string) =>
    ops(token, 'POST', `/shops/${shop.shopId}/adjustments`, body, key ? { 'idempotency-key': key } : undefined);
  const available = async () => {
    const b = (await ops(adminOp.token, 'GET', `/shops/${shop.shopId}/balance`)).body.balances;
    return b.find((x: { currency: string }) => x.currency === 'USD')?.available as string | undefined;
  };
  const statement = async () => (await ops(adminOp.token, 'GET', `/shops/${shop.shopId}/balance/transactions`)).body;
  const audited = async () =>
    (await ops(TEST_OPS_TOKEN, 'GET', '/audit?action=ledger.adjustment.post')).body.items as {
      operator: unknown;
      reason: string;
      before: unknown;
      after: unknown;
      object: unknown;
    }[];

  it('when an admin credits and then debits the shop, then available moves by each, each audited with the operator, reason, before and after', async () => {
    const credit = await adjust(adminOp.token, { currency: 'USD', amount: '25.00', reason: 'Goodwill, ticket 4411' });
    expect(credit.body).not.toHaveProperty('replayed');
    expect(credit).toMatchObject({
      status: 201,
      body: {
        shopId: shop.shopId,
        currency: 'USD',
        amount: '25',
        reason: 'Goodwill, ticket 4411',
        operator: { id: adminOp.id, name: 'Ada Admin' },
        availableAfter: '25',
      },
    });
    const debit = await adjust(adminOp.token, { currency: 'USD', amount: '-5.5', reason: 'Chargeback fee' });
    expect(debit).toMatchObject({ status: 201, body: { amount: '-5.5', availableAfter: '19.5' } });
    expect(await available()).toBe('19.5');

    // The merchant sees both on its statement; only operators see who posted them and why.
    const merchant = await http('GET', `${stack.gateway!.url}/balance/transactions?limit=10`, { token: shop.apiKey });
    expect(merchant.body.items.map((t: { kind: string; amount: string }) => [t.kind, t.amount])).toEqual([
      ['manual_adjustment', '-5.5'],
      ['manual_adjustment', '25'],
    ]);
    expect(JSON.stringify(merchant.body)).not.toContain('Chargeback fee');
    const items = (await statement()).items;
    expect(items[0]).toMatchObject({
      kind: 'manual_adjustment',
      source: { type: 'adjustment', id: debit.body.id },
      amount: '-5.5',
      currency: 'USD',
      adjustment: { reason: 'Chargeback fee', operator: { id: adminOp.id, name: 'Ada Admin' } },
    });

    const ada = { id: adminOp.id, name: 'Ada Admin', role: 'admin' };
    expect(await audited()).toEqual([
      expect.objectContaining({
        operator: ada,
        reason: 'Chargeback fee',
        object: { type: 'shop', id: shop.shopId },
        before: expect.objectContaining({ balances: [expect.objectContaining({ currency: 'USD', available: '25' })] }),
        after: debit.body,
      }),
      expect.objectContaining({
        operator: ada,
        reason: 'Goodwill, ticket 4411',
        before: { shopId: shop.shopId, balances: [] },
        after: credit.body,
      }),
    ]);
  });

  it('when a debit is more than available, then 422 names amount with the balance, and nothing is posted or audited', async () => {
    const before = { available: await available(), statement: await statement(), audited: (await audited()).length };
    const refused = await adjust(adminOp.token, { currency: 'USD', amount: '-19.51', reason: 'Too much' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      type: '/problems/unprocessable',
      detail: 'amount: the available balance 19.5 USD cannot cover a debit of 19.51 USD; nothing was posted',
      errors: [{ path: 'amount' }],
      available: '19.5',
      currency: 'USD',
    });
    expect({ available: await available(), statement: await statement(), audited: (await audited()).length }).toEqual(
      before,
    );
  });

  it('when the same Idempotency-Key is sent again, then it posts once and answers the first; with another amount it is a 422', async () => {
    const key = `adj-${randomUUID()}`;
    const body = { currency: 'USD', amount: '0.50', reason: 'Rounding correction' };
    const first = await adjust(adminOp.token, body, key);
    const again = await adjust(adminOp.token, body, key);
    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await available()).toBe('20');
    const reused = await adjust(adminOp.token, { ...body, amount: '0.60' }, key);
    expect(reused.status).toBe(422);
    expect(reused.body.errors).toEqual([expect.objectContaining({ path: "headers['Idempotency-Key']" })]);
    expect(await available()).toBe('20');
  });

  it('when the input is bad, then 400 names the field and nothing is posted or audited', async () => {
    const before = { available: await available(), audited: (await audited()).length };
    const ok = { currency: 'USD', amount: '1.00', reason: 'Typo' };
    const bad: [unknown, string][] = [
      [{ ...ok, currency: 'XYZ' }, 'currency'],
      [{ ...ok, currency: 'USDT' }, 'currency'],
      [{ ...ok, amount: 'ten' }, 'amount'],
      [{ ...ok, amount: '0' }, 'amount'],
      [{ ...ok, amount: '-0.00' }, 'amount'],
      [{ ...ok, amount: '1.001' }, 'amount'],
      [{ ...ok, amount: 5 }, 'amount'],
      [{ currency: 'USD', amount: '1.00' }, 'reason'],
      [{ ...ok, reason: '   ' }, 'reason'],
      [{ ...ok, reason: '' }, 'reason'],
    ];
    for (const [body, field] of bad) {
      const res = await adjust(adminOp.token, body);
      const paths = [...new Set((res.body.errors ?? []).map((e: { path: string }) => e.path))];
      expect({ body, status: res.status, paths }).toEqual({ body, status: 400, paths: [field] });
    }
    expect({ available: await available(), audited: (await audited()).length }).toEqual(before);
  });

  it('when an operator or a viewer posts one, then 403 and nothing changes; both read the balance and statement', async () => {
    const before = await available();
    for (const who of [operatorOp, viewer]) {
      const res = await adjust(who.token, { currency: 'USD', amount: '100', reason: 'Free money' });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/admin/);
      expect((await ops(who.token, 'GET', `/shops/${shop.shopId}/balance`)).status).toBe(200);
      expect((await ops(who.token, 'GET', `/shops/${shop.shopId}/balance/transactions?limit=1`)).status).toBe(200);
    }
    expect(await available()).toBe(before);
    expect((await ops(TEST_OPS_TOKEN, 'GET', `/audit?operatorId=${operatorOp.id}`)).body.items).toEqual([]);
  });

  it('when the statement is paged, then each page follows the last; an unknown shop is a 404', async () => {
    const first = await ops(viewer.token, 'GET', `/shops/${shop.shopId}/balance/transactions?limit=2`);
    expect(first.body.items).toHaveLength(2);
    const next = await ops(
      viewer.token,
      'GET',
      `/shops/${shop.shopId}/balance/transactions?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(next.body.items.length).toBeGreaterThan(0);
    const all = (await statement()).items.map((t: { id: string }) => t.id);
    expect([...first.body.items, ...next.body.items].map((t: { id: string }) => t.id)).toEqual(
      all.slice(0, 2 + next.body.items.length),
    );
    const unknown = randomUUID();
    expect((await ops(adminOp.token, 'GET', `/shops/${unknown}/balance`)).status).toBe(404);
    const toUnknown = await ops(adminOp.token, 'POST', `/shops/${unknown}/adjustments`, {
      currency: 'USD',
      amount: '1',
      reason: 'No such shop',
    });
    expect(toUnknown.status).toBe(404);
  });
});
