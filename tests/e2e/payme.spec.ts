import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCallbacksIngestConfig, startCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { paymeAuthorization } from '@payments/providers/payme';
import { eventually, http, registerOpenApi, unregisterOpenApi } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { openApiOf, TestStack } from '../support/stack';
import { setProviderAccount } from '../support/provider-accounts';
import { untilStatus } from '../support/wait';

const MERCHANT = '5e730e8e0b852a417aa49ceb';
const KEY = 'payme-test-cashbox-key';

/**
 * Payme's Merchant API (issue 30) against the real services: the test plays Payme, posting
 * JSON-RPC 2.0 with Basic authorization to a callbacks-ingest that serves one cashbox of a shop.
 */
describe('Payme: the Merchant API answered as documented', () => {
  let stack: TestStack;
  let shop: TestShop;
  let ingest: RunningCallbacksIngest;
  let ledger: RunningLedger;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'methods'] });
    shop = await aShop(stack.gateway!.url, 'Payme Shop');
    ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env()), 0);
    // The cashbox is an operator setting that reaches callbacks-ingest on shops.settings (decision 341).
    await setProviderAccount(stack, shop.shopId, 'payme', { merchantId: MERCHANT, key: KEY });
    ledger = await startLedger(loadLedgerConfig(stack.env()), 0);
    // Every answer below is held to callbacks-ingest's OpenAPI document (Payme's operation in it).
    registerOpenApi('callbacks-ingest', ingest.url, await openApiOf(ingest.url));
  });

  afterAll(async () => {
    if (ingest) unregisterOpenApi(ingest.url);
    await ingest?.close();
    await ledger?.close();
    await stack?.stop();
  });

  let rpcId = 0;
  async function rpc(method: string, params: unknown, key = KEY): Promise<any> {
    const res = await http('POST', `${ingest.url}/callbacks/payme/${MERCHANT}`, {
      headers: { authorization: paymeAuthorization(key) },
      body: { jsonrpc: '2.0', id: ++rpcId, method, params },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

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

  it('when Payme checks, creates and performs a transaction, then the order is paid once and every repeat answers the same', async () => {
    const id = await anOrder();
    const account = { order_id: id };
    expect((await rpc('CheckPerformTransaction', { amount: 15_000_000, account })).result).toEqual({ allow: true });
    const created = await rpc('CreateTransaction', { id: `pm-${id}`, time: Date.now(), amount: 15_000_000, account });
    expect(created.result).toEqual({ create_time: expect.any(Number), transaction: `pm-${id}`, state: 1 });
    expect(
      (await rpc('CreateTransaction', { id: `pm-${id}`, time: Date.now(), amount: 15_000_000, account })).result,
    ).toEqual(created.result);
    const performed = await rpc('PerformTransaction', { id: `pm-${id}` });
    expect(performed.result).toEqual({ transaction: `pm-${id}`, perform_time: expect.any(Number), state: 2 });
    expect((await rpc('PerformTransaction', { id: `pm-${id}` })).result).toEqual(performed.result);
    const done = await untilStatus(() => order(id), 'completed', 'order paid by Payme');
    expect(done.data.payments).toEqual([expect.objectContaining({ provider: 'payme', status: 'success' })]);
    expect((await rpc('CheckTransaction', { id: `pm-${id}` })).result).toMatchObject({ state: 2, reason: null });
    const statement = await rpc('GetStatement', { from: Date.now() - 60_000, to: Date.now() + 60_000 });
    expect(statement.result.transactions.map((t: { id: string }) => t.id)).toContain(`pm-${id}`);
  });

  /** A fresh order paid by a Payme transaction; its transaction id is `pr-<order id>`. */
  async function aPaidOrder(): Promise<{ id: string; tx: string }> {
    const id = await anOrder();
    const tx = `pr-${id}`;
    await rpc('CreateTransaction', { id: tx, time: Date.now(), amount: 15_000_000, account: { order_id: id } });
    expect((await rpc('PerformTransaction', { id: tx })).result).toMatchObject({ state: 2 });
    await untilStatus(() => order(id), 'completed', 'order paid by Payme');
    return { id, tx };
  }

  it('when Payme cancels a performed transaction, then the order is refunded once, as a merchant refund is', async () => {
    const { id, tx } = await aPaidOrder();
    const cancelled = await rpc('CancelTransaction', { id: tx, reason: 5 });
    expect(cancelled.result).toEqual({ transaction: tx, cancel_time: expect.any(Number), state: -2 });
    expect((await rpc('CancelTransaction', { id: tx, reason: 5 })).result).toEqual(cancelled.result);
    const refunded = await untilStatus(() => order(id), 'refunded', 'order refunded by Payme');
    expect(refunded.data.refunds).toEqual([expect.objectContaining({ amount: '150000.00' })]);
    const booked = await eventually(
      async () => {
        const items = (
          await http('GET', `${stack.gateway!.url}/balance/transactions?limit=100`, { token: shop.apiKey })
        ).body.items as { kind: string; source: { id: string }; gross: string }[] | undefined;
        return items?.find((i) => i.kind === 'order_refunded' && i.source.id === id);
      },
      20_000,
      'the ledger booked the refund',
    );
    expect(booked).toMatchObject({ gross: '150000', operationCurrency: 'UZS' });
    expect((await rpc('CheckTransaction', { id: tx })).result).toMatchObject({
      state: -2,
      reason: 5,
      cancel_time: cancelled.result.cancel_time,
    });
  });

  it('when the merchant has refunded the order already, then cancelling the performed transaction is -31007', async () => {
    const { id, tx } = await aPaidOrder();
    const res = await http('POST', `${stack.gateway!.url}/order/refund`, {
      token: shop.apiKey,
      body: { orderId: id, cost: { amount: '150000.00', currency: 'UZS' } },
    });
    expect(res.status).toBe(200);
    expect((await rpc('CancelTransaction', { id: tx, reason: 5 })).error).toMatchObject({ code: -31007 });
    expect((await rpc('CheckTransaction', { id: tx })).result).toMatchObject({ state: 2 });
  });

  it('when the body is not JSON, then the answer is JSON-RPC -32700 with HTTP 200', async () => {
    const res = await http('POST', `${ingest.url}/callbacks/payme/${MERCHANT}`, {
      headers: { authorization: paymeAuthorization(KEY) },
      rawBody: '{"jsonrpc": "2.0", "method": ',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: expect.objectContaining({ code: -32700, message: expect.objectContaining({ en: 'JSON parse error' }) }),
    });
  });

  it('when a body elsewhere is not JSON, then it is still the platform problem', async () => {
    const res = await http('POST', `${ingest.url}/callbacks/sandbox`, { rawBody: '{"not json' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('when a created transaction is cancelled, then it is -1 and cannot be performed (-31008)', async () => {
    const id = await anOrder();
    await rpc('CreateTransaction', { id: `pc-${id}`, time: Date.now(), amount: 15_000_000, account: { order_id: id } });
    expect((await rpc('CancelTransaction', { id: `pc-${id}`, reason: 3 })).result).toMatchObject({ state: -1 });
    expect((await rpc('PerformTransaction', { id: `pc-${id}` })).error).toMatchObject({ code: -31008 });
    expect((await order(id)).status).toBe('registered');
  });

  it.each([
    ['a wrong amount', 'CheckPerformTransaction', (id: string) => ({ amount: 1, account: { order_id: id } }), -31001],
    [
      'an unknown order',
      'CheckPerformTransaction',
      () => ({ amount: 15_000_000, account: { order_id: '00000000-0000-4000-8000-000000000000' } }),
      -31050,
    ],
    ['an unknown transaction', 'PerformTransaction', () => ({ id: 'pm-none' }), -31003],
    ['an unknown method', 'PayNow', () => ({}), -32601],
    ['params of the wrong type', 'CheckTransaction', () => ({ id: 7 }), -32600],
  ])('when Payme sends %s, then the error is its code', async (_c, method, params, code) => {
    const id = await anOrder();
    expect((await rpc(method, params(id))).error).toMatchObject({
      code,
      message: { ru: expect.any(String), uz: expect.any(String), en: expect.any(String) },
    });
  });

  it('when another transaction of the order is open, then CreateTransaction is an account error (-31051)', async () => {
    const id = await anOrder();
    await rpc('CreateTransaction', { id: `p1-${id}`, time: Date.now(), amount: 15_000_000, account: { order_id: id } });
    expect(
      (
        await rpc('CreateTransaction', {
          id: `p2-${id}`,
          time: Date.now(),
          amount: 15_000_000,
          account: { order_id: id },
        })
      ).error,
    ).toMatchObject({ code: -31051 });
  });

  it('when the key is wrong, then -32504 Insufficient privilege', async () => {
    expect((await rpc('CheckTransaction', { id: 'x' }, 'another-key-123')).error).toMatchObject({ code: -32504 });
  });

  it("when an operator changes the cashbox's key, then the next call is checked with the new key only", async () => {
    const check = (key: string) =>
      rpc(
        'CheckPerformTransaction',
        { amount: 100, account: { order_id: '00000000-0000-4000-8000-000000000000' } },
        key,
      );
    const rotated = 'payme-rotated-cashbox-key';
    expect((await check(rotated)).error.code).toBe(-32504);
    await setProviderAccount(stack, shop.shopId, 'payme', { merchantId: MERCHANT, key: rotated });
    expect((await check(KEY)).error.code).toBe(-32504);
    // Past the authorization: the order is what is refused now.
    expect((await check(rotated)).error.code).not.toBe(-32504);
    await setProviderAccount(stack, shop.shopId, 'payme', { merchantId: MERCHANT, key: KEY });
  });
});
