import { loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { eventually, http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * Issue 29 items 3 and 4, operator side (decision 303): an admin sets a shop's fee, its settlement
 * delay and a rate through the backoffice (`/ops/v1`, carried to the ledger on
 * `ledger.ops-commands`), each audited with the operator and the reason; an order completed
 * afterwards is booked with that fee at that rate and settles at once; bad input is a 400 naming
 * the field that changes nothing; a viewer reads and changes nothing. HTTP only.
 */
describe('operators set fees, rates and settlement delay', () => {
  let stack: TestStack;
  let ledger: RunningLedger;
  let shop: TestShop;
  let adminOp: { id: string; token: string };
  let viewer: { id: string; token: string };

  beforeAll(async () => {
    const extraEnv = { LEDGER_SETTLEMENT_SWEEP_MS: '200' };
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox', 'methods'],
      extraEnv,
    });
    ledger = await startLedger(loadLedgerConfig(stack.env(extraEnv)), 0);
    shop = await aShop(stack.gateway!.url, 'Fee Shop');
    const anOperator = async (name: string, role: string) => {
      const created = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
        token: TEST_OPS_TOKEN,
        body: { name, role },
      });
      expect(created.status).toBe(201);
      return created.body as { id: string; token: string };
    };
    adminOp = await anOperator('Ada Admin', 'admin');
    viewer = await anOperator('Vic Viewer', 'viewer');
  });

  afterAll(async () => {
    await ledger?.close();
    await stack?.stop();
  });

  const ops = (token: string, method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token, body });
  const asAdmin = (method: string, path: string, body?: unknown) => ops(adminOp.token, method, path, body);
  const merchant = (path: string) => http('GET', `${stack.gateway!.url}${path}`, { token: shop.apiKey });
  const auditOf = async (action: string) =>
    (await ops(TEST_OPS_TOKEN, 'GET', `/audit?action=${action}`)).body.items as {
      operator: unknown;
      reason: string;
      after: unknown;
      object: unknown;
    }[];
  const ada = () => ({ id: adminOp.id, name: 'Ada Admin', role: 'admin' });

  it('when an admin sets a fee, a settlement delay of 0 and a rate, then each is answered and audited with the operator and reason', async () => {
    const fee = await asAdmin('PUT', `/shops/${shop.shopId}/fees/%2A/USD`, {
      percent: '2.5',
      fixed: '0.30',
      minimum: '1.00',
      reason: 'Contract schedule B',
    });
    expect(fee).toMatchObject({
      status: 200,
      body: { shopId: shop.shopId, method: '*', currency: 'USD', percent: '2.5', fixed: '0.3', minimum: '1' },
    });
    const settlement = await asAdmin('PUT', `/shops/${shop.shopId}/settlement`, {
      settlementDelaySeconds: 0,
      reason: 'Settles at once',
    });
    expect(settlement).toMatchObject({
      status: 200,
      body: { shopId: shop.shopId, settlementDelaySeconds: 0, default: false },
    });
    const rate = await asAdmin('POST', '/rates', {
      base: 'USD',
      quote: 'USDT-TRC20',
      rate: '0.998',
      validFrom: new Date(Date.now() - 3_600_000).toISOString(),
      reason: 'Treasury rate of the day',
    });
    expect(rate).toMatchObject({
      status: 201,
      body: { base: 'USD', quote: 'USDT-TRC20', rate: '0.998', source: `operator:${adminOp.id}`, validTo: null },
    });

    expect((await asAdmin('GET', `/shops/${shop.shopId}/fees`)).body.fees).toEqual([fee.body]);
    expect((await asAdmin('GET', `/shops/${shop.shopId}/settlement`)).body).toEqual(settlement.body);
    expect((await asAdmin('GET', '/rates?base=USD&quote=USDT-TRC20')).body.rates).toContainEqual(rate.body);

    expect(await auditOf('ledger.fee.set')).toEqual([
      expect.objectContaining({
        operator: ada(),
        reason: 'Contract schedule B',
        object: { type: 'shop', id: shop.shopId },
        after: fee.body,
      }),
    ]);
    expect(await auditOf('ledger.settlement.set')).toEqual([
      expect.objectContaining({ operator: ada(), reason: 'Settles at once', after: settlement.body }),
    ]);
    expect(await auditOf('ledger.rate.set')).toEqual([
      expect.objectContaining({ operator: ada(), reason: 'Treasury rate of the day', after: rate.body }),
    ]);
  });

  it('when an order completes afterwards, then it is booked with that fee at that rate and is available at once', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest({ amount: '100.99' }),
        recipient: { merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' } },
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const read = async () => (await merchant(`/order/${id}`)).body;
    await untilStatus(read, 'in_progress', `order ${id} in_progress`);
    const sim = await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: { kind: 'payment', reference: id, status: 'success', amount: '100.99', currency: 'USD' },
    });
    expect(sim.body).toMatchObject({ delivered: true });
    await untilStatus(read, 'completed', `order ${id} completed`);

    // fee = 2.5 % of 100.99 + 0.30 = 2.82475 -> 2.82 (above the minimum 1.00); net 98.17 USD;
    // x 0.998 = 97.97366 USDT-TRC20, available at once (delay 0).
    const balance = await eventually(
      async () => {
        const b = (await merchant('/balance')).body.balances?.[0];
        return b?.available === '97.97366' ? b : undefined;
      },
      20_000,
      'the credit available at once',
    );
    expect(balance).toEqual({ currency: 'USDT-TRC20', available: '97.97366', pending: '0', reserved: '0', owed: '0' });
    const statement = await merchant('/balance/transactions?limit=10');
    expect(statement.status).toBe(200);
    const credit = statement.body.items.find((t: { kind: string }) => t.kind === 'order_completed');
    expect(credit).toMatchObject({
      source: { type: 'order', id },
      gross: '100.99',
      fee: '2.82',
      net: '98.17',
      operationCurrency: 'USD',
      amount: '97.97366',
      currency: 'USDT-TRC20',
      rate: { rate: '0.998', source: `operator:${adminOp.id}` },
    });
    expect(new Date(credit.availableOn).getTime()).toBeLessThanOrEqual(new Date(credit.createdAt).getTime() + 1000);
    expect(statement.body.items.map((t: { kind: string }) => t.kind)).toContain('settlement');
  });

  it('when the input is bad, then 400 names the field and nothing changes', async () => {
    const fees = (await asAdmin('GET', `/shops/${shop.shopId}/fees`)).body;
    const settlement = (await asAdmin('GET', `/shops/${shop.shopId}/settlement`)).body;
    const rates = (await asAdmin('GET', '/rates?base=USD&quote=USDT-TRC20')).body;
    const audited = (await ops(TEST_OPS_TOKEN, 'GET', '/audit?action=ledger.fee.set')).body.items.length;
    const fee = { percent: '2.5', fixed: '0.30', minimum: '1.00', reason: 'Typo' };
    const bad: [string, string, unknown, string][] = [
      ['PUT', `/shops/${shop.shopId}/fees/%2A/USD`, { ...fee, percent: '101' }, 'percent'],
      ['PUT', `/shops/${shop.shopId}/fees/%2A/USD`, { ...fee, fixed: '-1' }, 'fixed'],
      ['PUT', `/shops/${shop.shopId}/fees/%2A/USD`, { ...fee, minimum: '0.001' }, 'minimum'],
      ['PUT', `/shops/${shop.shopId}/fees/%2A/XYZ`, fee, 'currency'],
      ['PUT', `/shops/${shop.shopId}/fees/%2A/USD`, { percent: '1', fixed: '0', minimum: '0' }, 'reason'],
      [
        'PUT',
        `/shops/${shop.shopId}/settlement`,
        { settlementDelaySeconds: -1, reason: 'Typo' },
        'settlementDelaySeconds',
      ],
      [
        'POST',
        '/rates',
        { base: 'USD', quote: 'USDT-TRC20', rate: '0', validFrom: '2026-11-27T00:00:00Z', reason: 'Typo' },
        'rate',
      ],
      [
        'POST',
        '/rates',
        {
          base: 'USD',
          quote: 'USDT-TRC20',
          rate: '1',
          validFrom: '2026-11-27T00:00:00Z',
          validTo: '2026-11-26T00:00:00Z',
          reason: 'Typo',
        },
        'validTo',
      ],
      [
        'POST',
        '/rates',
        { base: 'ABC', quote: 'USD', rate: '1', validFrom: '2026-11-27T00:00:00Z', reason: 'Typo' },
        'base',
      ],
    ];
    for (const [method, path, body, field] of bad) {
      const res = await asAdmin(method, path, body);
      expect({ path, field, status: res.status, named: JSON.stringify(res.body.errors ?? []).includes(field) }).toEqual(
        {
          path,
          field,
          status: 400,
          named: true,
        },
      );
      expect(res.body.detail).toMatch(new RegExp(`${field}|see errors`));
    }
    expect((await asAdmin('GET', `/shops/${shop.shopId}/fees`)).body).toEqual(fees);
    expect((await asAdmin('GET', `/shops/${shop.shopId}/settlement`)).body).toEqual(settlement);
    expect((await asAdmin('GET', '/rates?base=USD&quote=USDT-TRC20')).body).toEqual(rates);
    expect((await ops(TEST_OPS_TOKEN, 'GET', '/audit?action=ledger.fee.set')).body.items).toHaveLength(audited);
  });

  it('when a viewer reads, then it sees the settings; when it changes one, then 403 and nothing changes', async () => {
    const fees = await ops(viewer.token, 'GET', `/shops/${shop.shopId}/fees`);
    expect(fees.status).toBe(200);
    expect((await ops(viewer.token, 'GET', `/shops/${shop.shopId}/settlement`)).status).toBe(200);
    expect((await ops(viewer.token, 'GET', '/rates')).status).toBe(200);
    const changes: [string, string, unknown][] = [
      ['PUT', `/shops/${shop.shopId}/fees/%2A/USD`, { percent: '0', fixed: '0', minimum: '0', reason: 'Free' }],
      ['DELETE', `/shops/${shop.shopId}/fees/%2A/USD`, { reason: 'Free' }],
      ['PUT', `/shops/${shop.shopId}/settlement`, { settlementDelaySeconds: 60, reason: 'Slower' }],
      ['POST', '/rates', { base: 'USD', quote: 'EUR', rate: '1', validFrom: '2026-11-27T00:00:00Z', reason: 'Guess' }],
    ];
    for (const [method, path, body] of changes)
      expect({ method, path, status: (await ops(viewer.token, method, path, body)).status }).toEqual({
        method,
        path,
        status: 403,
      });
    expect((await ops(viewer.token, 'GET', `/shops/${shop.shopId}/fees`)).body).toEqual(fees.body);
    expect((await ops(TEST_OPS_TOKEN, 'GET', `/audit?operatorId=${viewer.id}`)).body.items).toEqual([]);
  });

  it('when an admin deletes the fee line, then it is gone, audited with its before, and a second delete is 404', async () => {
    const before = (await asAdmin('GET', `/shops/${shop.shopId}/fees`)).body.fees[0];
    const del = await asAdmin('DELETE', `/shops/${shop.shopId}/fees/%2A/USD`, { reason: 'Contract ended' });
    expect(del.status).toBe(204);
    expect((await asAdmin('GET', `/shops/${shop.shopId}/fees`)).body.fees).toEqual([]);
    expect(await auditOf('ledger.fee.delete')).toEqual([
      expect.objectContaining({ operator: ada(), reason: 'Contract ended', before }),
    ]);
    expect((await asAdmin('DELETE', `/shops/${shop.shopId}/fees/%2A/USD`, { reason: 'Again' })).status).toBe(404);
  });
});
