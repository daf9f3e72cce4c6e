import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import type { RunningSandbox } from '@payments/apps/provider-sandbox';
import { http } from '@payments/testing';
import { startPayme } from '../support/payme';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

const MERCHANT = '7b2d3e4f5a6b7c8d9e0f1a2b';
const KEY = 'payme-simulator-cashbox-key';
const TIYIN = 15_000_000;

interface Step {
  method: string;
  request: any;
  httpStatus: number;
  answer: any;
}

/**
 * The sandbox's Payme simulator (libs/providers/payme/src/simulator) against the real services:
 * each scenario posts Payme's JSON-RPC, with the cashbox's Basic authorization, to a callbacks-ingest
 * that serves the cashbox, and the test reads what callbacks-ingest answered and what the order became.
 */
describe("Payme's simulator: the Merchant API driven as Payme drives it", () => {
  let stack: TestStack;
  let shop: TestShop;
  let ingest: RunningCallbacksIngest;
  let payme: RunningSandbox;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'methods'] });
    shop = await aShop(stack.gateway!.url, 'Payme Simulator Shop');
    ({ ingest, payme } = await startPayme(stack, { shopId: shop.shopId, merchantId: MERCHANT, key: KEY }));
  });

  afterAll(async () => {
    await payme?.close();
    await ingest?.close();
    await stack?.stop();
  });

  async function anOrder(): Promise<string> {
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: { ...anOrderRequest({ amount: '150000.00', currency: 'UZS' }), paymentPageDesign: { format: 'hosted' } },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  const order = async (id: string) =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;

  async function play(name: string, orderId: string, transactionId?: string): Promise<Step[]> {
    const res = await http('POST', `${payme.url}/payme/scenarios/${name}`, {
      body: { orderId, amount: TIYIN, merchantId: MERCHANT, ...(transactionId ? { transactionId } : {}) },
    });
    expect(res.status).toBe(200);
    const steps = res.body.steps as Step[];
    for (const s of steps) expect(s.httpStatus).toBe(200);
    return steps;
  }
  const codes = (steps: Step[]) => steps.map((s) => s.answer?.error?.code ?? 'result');

  it('when Payme pays, then it checks, creates and performs with the key, tiyin and its time in ms, and the order is paid', async () => {
    const id = await anOrder();
    const before = Date.now();
    const steps = await play('pay', id);
    expect(steps.map((s) => s.method)).toEqual(['CheckPerformTransaction', 'CreateTransaction', 'PerformTransaction']);
    expect(steps[0].answer.result).toEqual({ allow: true });
    const created = steps[1].request.params;
    expect(created).toMatchObject({ amount: TIYIN, account: { order_id: id } });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect(created.time).toBeGreaterThanOrEqual(before);
    expect(created.time).toBeLessThanOrEqual(Date.now());
    expect(steps[2].answer.result).toMatchObject({ transaction: created.id, state: 2 });
    const paid = await untilStatus(() => order(id), 'completed', 'order paid through the simulator');
    expect(paid.data.payments).toEqual([
      expect.objectContaining({ provider: 'payme', status: 'success', paymentId: `payme_${created.id}` }),
    ]);
  });

  it('when Payme repeats Create and Perform, then the answers are the first ones and the order is paid once', async () => {
    const id = await anOrder();
    const steps = await play('pay_repeated', id);
    expect(codes(steps)).toEqual(['result', 'result', 'result', 'result', 'result']);
    expect(steps.map((s) => s.method)).toEqual([
      'CheckPerformTransaction',
      'CreateTransaction',
      'CreateTransaction',
      'PerformTransaction',
      'PerformTransaction',
    ]);
    expect(steps[2].answer.result).toEqual(steps[1].answer.result);
    expect(steps[4].answer.result).toEqual(steps[3].answer.result);
    const paid = await untilStatus(() => order(id), 'completed', 'order paid once');
    expect(paid.data.payments).toHaveLength(1);
  });

  it('when Payme cancels before perform, then the transaction is -1 and the order stays payable, paid by the next one', async () => {
    const id = await anOrder();
    const steps = await play('cancel', id);
    expect(steps[2]).toMatchObject({ method: 'CancelTransaction', answer: { result: { state: -1 } } });
    expect((await order(id)).status).toBe('registered');
    expect(codes(await play('pay', id))).toEqual(['result', 'result', 'result']);
    await untilStatus(() => order(id), 'completed', 'order paid after a cancelled transaction');
  });

  it('when Payme cancels after perform, then the transaction is -2 and the order is refunded', async () => {
    const id = await anOrder();
    const tx = (await play('pay', id))[2].answer.result.transaction as string;
    await untilStatus(() => order(id), 'completed', 'order paid');
    const steps = await play('refund', id, tx);
    expect(steps).toEqual([
      expect.objectContaining({
        method: 'CancelTransaction',
        request: expect.objectContaining({ params: { id: tx, reason: 5 } }),
        answer: expect.objectContaining({ result: expect.objectContaining({ transaction: tx, state: -2 }) }),
      }),
    ]);
    const refunded = await untilStatus(() => order(id), 'refunded', 'order refunded by Payme');
    expect(refunded.data.refunds).toEqual([expect.objectContaining({ amount: '150000.00' })]);
  });

  it.each([
    ['wrong_key', -32504],
    ['wrong_amount', -31001],
    ['unknown_order', -31050],
    ['unknown_transaction', -31003],
    ['unknown_method', -32601],
    ['malformed', -32600],
    ['not_json', -32700],
  ])(
    'when the simulator plays %s, then callbacks-ingest answers %i, with its message in ru, uz, en',
    async (name, code) => {
      const id = await anOrder();
      const steps = await play(name, id);
      expect(steps).toHaveLength(1);
      expect(steps[0].answer.error).toMatchObject({
        code,
        message: { ru: expect.any(String), uz: expect.any(String), en: expect.any(String) },
      });
      expect((await order(id)).status).toBe('registered');
    },
  );

  it('when a second transaction is created while one is open, then -31051; a cancelled one cannot be performed (-31008)', async () => {
    expect(codes(await play('order_busy', await anOrder()))).toEqual(['result', -31051]);
    expect(codes(await play('perform_cancelled', await anOrder()))).toEqual(['result', 'result', -31008]);
  });

  it('when the order is paid already, then Check is -31052', async () => {
    const id = await anOrder();
    await play('pay', id);
    await untilStatus(() => order(id), 'completed', 'order paid');
    expect(codes(await play('order_not_payable', id))).toEqual([-31052]);
  });

  it('when the scenario or the cashbox is unknown, then a problem names it and nothing is sent', async () => {
    const none = await http('POST', `${payme.url}/payme/scenarios/pay_twice`, {
      body: { orderId: 'x', amount: TIYIN, merchantId: MERCHANT },
    });
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain('no Payme scenario "pay_twice"');
    const cashbox = await http('POST', `${payme.url}/payme/scenarios/pay`, {
      body: { orderId: 'x', amount: TIYIN, merchantId: 'ffffffffffffffffffffffff' },
    });
    expect(cashbox.status).toBe(400);
    expect(cashbox.body.errors).toEqual([{ path: 'merchantId', message: 'is not in PAYME_KEYS' }]);
    const refund = await http('POST', `${payme.url}/payme/scenarios/refund`, {
      body: { orderId: 'x', amount: TIYIN, merchantId: MERCHANT },
    });
    expect(refund.status).toBe(400);
    expect(refund.body.errors).toEqual([{ path: 'transactionId', message: 'is required for refund' }]);
    const sums = await http('POST', `${payme.url}/payme/scenarios/pay`, {
      body: { orderId: 'x', amount: 1.5, merchantId: MERCHANT },
    });
    expect(sums.status).toBe(400);
  });
});
