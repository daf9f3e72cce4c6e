import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import createClient from 'openapi-fetch';
import { checkAnswer, eventually, http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { withPayoutMethods } from '../support/transfers';
import type { paths } from './openapi-types';

/**
 * A merchant's program on a client generated from the published document (openapi-typescript +
 * openapi-fetch). `tsc` type-checks it against the committed types; this test checks they are the
 * ones the gateway's document gives today, and holds every answer the client gets to the document.
 */
const TYPES_FILE = path.join(__dirname, 'openapi-types.ts');
const GENERATOR = path.resolve(__dirname, '../../tools/openapi/generate-types.mjs');

/** fetch, with each answer checked against the document as the e2e helpers check theirs. */
async function checkedFetch(request: Request, send: (r: Request) => Promise<Response> = fetch): Promise<Response> {
  const res = await send(request);
  const text = await res.clone().text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  checkAnswer(request.method, request.url, res.status, res.headers.get('content-type'), body);
  return res;
}

describe('a merchant program on the client generated from the OpenAPI document', () => {
  let stack: TestStack;
  let shop: TestShop;
  let doc: unknown;

  beforeAll(async () => {
    stack = await TestStack.start();
    shop = await aShop(stack.gateway!.url, 'Client Shop');
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    doc = (await http('GET', `${stack.gateway!.url}/docs/openapi.json`)).body;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('when the types are generated from the served document, then they are the committed ones', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-types-'));
    const input = path.join(dir, 'openapi.json');
    const output = process.env.UPDATE_OPENAPI_TYPES ? TYPES_FILE : path.join(dir, 'openapi-types.ts');
    writeFileSync(input, JSON.stringify(doc));
    const r = spawnSync(process.execPath, [GENERATOR, input, output], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // On a difference: UPDATE_OPENAPI_TYPES=1 npx jest tests/client rewrites the committed file.
    expect(readFileSync(output, 'utf8')).toEqual(readFileSync(TYPES_FILE, 'utf8'));
  });

  it('when the merchant creates an order, reads it, refunds it, lists payout methods and creates a payout, then each typed call gets the documented answer', async () => {
    const client = createClient<paths>({
      baseUrl: stack.gateway!.url,
      headers: { authorization: `Bearer ${shop.apiKey}` },
      fetch: (request: Request) => checkedFetch(request),
    });

    const created = await client.POST('/order', {
      params: { header: { 'Idempotency-Key': `client-order-${Date.now()}` } },
      body: {
        order: { merchantOrderId: `client-${Date.now()}`, cost: { amount: '120.00', currency: 'USD' } },
        payer: { email: 'payer@example.com', phone: '+998901234567' },
      },
    });
    expect(created.response.status).toBe(201);
    const orderId = created.data!.id!;
    expect(created.data!.status).toBe('registered');

    // The sandbox pays it and calls back; the merchant polls until it is completed.
    const completed = await eventually(
      async () => {
        const { data } = await client.GET('/order/{orderId}', { params: { path: { orderId } } });
        return data?.status === 'completed' ? data : undefined;
      },
      20_000,
      `order ${orderId} completed`,
    );
    expect(completed.order!.cost).toEqual({ amount: '120.00', currency: 'USD' });

    const refunded = await client.POST('/order/refund', {
      body: { orderId, cost: { amount: '20.00', currency: 'USD' } },
    });
    expect(refunded.response.status).toBe(200);
    expect(refunded.data!.status).toBe('partially_refunded');
    expect(refunded.data!.data!.refunds!.map((r) => r.amount)).toEqual(['20.00']);

    const methods = await client.GET('/payouts/payout-methods/{shopId}', {
      params: { path: { shopId: shop.shopId } },
    });
    expect(methods.response.status).toBe(200);
    const codes = methods.data!.methods.map((m) => m.code);
    expect(codes).toEqual(expect.arrayContaining(['wallet-payout', 'uzcard-payout']));

    const payout = await client.POST('/payouts', {
      body: {
        payout: {
          merchantPayoutId: `client-po-${Date.now()}`,
          method: 'wallet-payout',
          cost: { amount: '15.99', currency: 'USD' },
        },
        instrumentType: 'wallet',
        walletType: 'personal',
        payee: { walletId: 'w-client-1', firstName: 'Jane', lastName: 'Doe' },
      },
    });
    expect(payout.response.status).toBe(201);
    expect(payout.data!.status).toBe('registered');
    expect(payout.data!.payout!.cost).toEqual({ amount: '15.99', currency: 'USD' });
  }, 60_000);

  it('when an answer holds a member the document does not, then the client call fails naming it (the check can fail)', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: { order: { merchantOrderId: `client-extra-${Date.now()}`, cost: { amount: '1.99', currency: 'USD' } } },
    });
    // A gateway that answers one member more than its document says.
    const client = createClient<paths>({
      baseUrl: stack.gateway!.url,
      headers: { authorization: `Bearer ${shop.apiKey}` },
      fetch: async (request: Request) => {
        const real = await fetch(request);
        const body = JSON.stringify({ ...((await real.json()) as object), cardNumber: '4111111111111111' });
        return checkedFetch(new Request(request.url, { method: 'GET' }), async () => new Response(body, real));
      },
    });
    await expect(client.GET('/order/{orderId}', { params: { path: { orderId: created.body.id } } })).rejects.toThrow(
      /must NOT have additional properties "cardNumber"/,
    );
  });
});
