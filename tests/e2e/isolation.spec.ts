import { randomUUID } from 'node:crypto';
import { registeredRoutes } from '@payments/platform';
import { http, HttpResult } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { apiRoutes, ApiRoute, fill } from '../support/routes';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';

/** How a merchant route takes the id of an object another shop may own. */
interface IdRoute {
  method: string;
  /** Fastify's pattern, as registered (checked against the running gateway). */
  route: string;
  resource: keyof typeof OWNED;
  request(id: string): { path: string; body?: unknown };
}

/** Makes an object of the resource in the given shop and answers its id. */
const OWNED = {
  order: async (gateway: string, shop: TestShop): Promise<string> => {
    const res = await http('POST', `${gateway}/order`, { token: shop.apiKey, body: anOrderRequest() });
    if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
    return res.body.id;
  },
  payout: async (gateway: string, shop: TestShop): Promise<string> => {
    await withPayoutMethods(gateway, shop.shopId);
    const res = await http('POST', `${gateway}/payouts`, { token: shop.apiKey, body: aPayoutRequest() });
    if (res.status !== 201) throw new Error(`payout: ${res.status} ${res.text}`);
    return res.body.id;
  },
  p2p: async (gateway: string, shop: TestShop): Promise<string> => {
    const res = await http('POST', `${gateway}/p2p`, { token: shop.apiKey, body: aP2pRequest() });
    if (res.status !== 201) throw new Error(`p2p: ${res.status} ${res.text}`);
    return res.body.id;
  },
};

const refundOf = (orderId: string) => ({ orderId, cost: { amount: '1.00', currency: 'USD' } });

/** Every merchant route that takes an object id; one line per route. */
const ID_ROUTES: IdRoute[] = [
  { method: 'GET', route: '/order/:orderId', resource: 'order', request: (id) => ({ path: `/order/${id}` }) },
  {
    method: 'GET',
    route: '/api/v1/order/:orderId',
    resource: 'order',
    request: (id) => ({ path: `/api/v1/order/${id}` }),
  },
  {
    method: 'POST',
    route: '/order/cancel',
    resource: 'order',
    request: (id) => ({ path: '/order/cancel', body: { orderId: id } }),
  },
  {
    method: 'POST',
    route: '/api/v1/order/cancel',
    resource: 'order',
    request: (id) => ({ path: '/api/v1/order/cancel', body: { orderId: id } }),
  },
  {
    method: 'POST',
    route: '/order/reject',
    resource: 'order',
    request: (id) => ({ path: '/order/reject', body: { orderId: id } }),
  },
  {
    method: 'POST',
    route: '/api/v1/order/reject',
    resource: 'order',
    request: (id) => ({ path: '/api/v1/order/reject', body: { orderId: id } }),
  },
  {
    method: 'POST',
    route: '/order/refund',
    resource: 'order',
    request: (id) => ({ path: '/order/refund', body: refundOf(id) }),
  },
  {
    method: 'POST',
    route: '/api/v1/order/refund',
    resource: 'order',
    request: (id) => ({ path: '/api/v1/order/refund', body: refundOf(id) }),
  },
  { method: 'GET', route: '/payouts/:payoutId', resource: 'payout', request: (id) => ({ path: `/payouts/${id}` }) },
  {
    method: 'GET',
    route: '/api/v1/payouts/:payoutId',
    resource: 'payout',
    request: (id) => ({ path: `/api/v1/payouts/${id}` }),
  },
  { method: 'GET', route: '/p2p/:id', resource: 'p2p', request: (id) => ({ path: `/p2p/${id}` }) },
  { method: 'GET', route: '/api/v1/p2p/:id', resource: 'p2p', request: (id) => ({ path: `/api/v1/p2p/${id}` }) },
];

/**
 * Every merchant route with a `{shopId}` in its path; one line per route, e.g.
 * `{ method: 'GET', route: '/shops/:shopId/payment-methods' }`.
 */
const SHOP_ID_ROUTES: { method: string; route: string }[] = [
  { method: 'GET', route: '/shops/:shopId/payment-methods' },
  { method: 'GET', route: '/api/v1/shops/:shopId/payment-methods' },
  { method: 'GET', route: '/payouts/payout-methods/:shopId' },
  { method: 'GET', route: '/api/v1/payouts/payout-methods/:shopId' },
];

const name = (r: { method: string; route?: string; url?: string }) => `${r.method} ${r.route ?? r.url}`;

/** The answer with the ids it names replaced, so that two answers about different ids compare. */
function normalized(res: HttpResult, ids: string[]): unknown {
  let text = res.text;
  for (const id of ids) text = text.split(id).join('<id>');
  return { status: res.status, contentType: res.headers.get('content-type'), body: JSON.parse(text) };
}

describe('cross-shop isolation and the two kinds of credentials', () => {
  let stack: TestStack;
  let gateway: string;
  let shopA: TestShop;
  let shopB: TestShop;
  let routes: ApiRoute[];
  const ownedByA: Partial<Record<keyof typeof OWNED, string>> = {};

  beforeAll(async () => {
    // methods answers the {shopId} routes, so the key's own shop gets a real answer rather than a timeout.
    stack = await TestStack.start({ services: ['gateway', 'orders', 'methods', 'payouts', 'p2p'] });
    gateway = stack.gateway!.url;
    shopA = await aShop(gateway, 'Shop A');
    shopB = await aShop(gateway, 'Shop B');
    routes = [
      ...apiRoutes(registeredRoutes(stack.gateway!.app)),
      ...apiRoutes(registeredRoutes(stack.backoffice!.app)),
    ];
    for (const resource of Object.keys(OWNED) as (keyof typeof OWNED)[])
      ownedByA[resource] = await OWNED[resource](gateway, shopA);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const send = (r: IdRoute, id: string, token: string) => {
    const { path, body } = r.request(id);
    return http(r.method, `${gateway}${path}`, { token, ...(body !== undefined ? { body } : {}) });
  };

  it.each(ID_ROUTES.map((r) => [name(r), r] as const))(
    "when shop B sends shop A's id to %s, then it answers exactly what an unknown id answers",
    async (_name, r) => {
      const foreignId = ownedByA[r.resource]!;
      const unknownId = randomUUID();
      const foreign = await send(r, foreignId, shopB.apiKey);
      const unknown = await send(r, unknownId, shopB.apiKey);
      expect(foreign.status).toBe(404);
      expect(foreign.body.type).toBe('/problems/not-found');
      expect(normalized(foreign, [foreignId])).toEqual(normalized(unknown, [unknownId]));
    },
  );

  it("when shop B has tried every id route on shop A's order, then the order is untouched for shop A", async () => {
    const res = await http('GET', `${gateway}/order/${ownedByA.order}`, { token: shopA.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ownedByA.order, shopId: shopA.shopId, status: 'registered' });
    expect(res.body.data.refunds ?? []).toEqual([]);
  });

  it('when the gateway serves a merchant route with an id in its path, then the id table above covers it', () => {
    const covered = new Set(ID_ROUTES.map(name));
    const withIds = routes.filter((r) => r.access === 'merchant' && r.params.some((p) => p !== 'shopId'));
    expect(withIds.length).toBeGreaterThan(0);
    expect(withIds.map(name).filter((n) => !covered.has(n))).toEqual([]);
    const registered = new Set(routes.map(name));
    expect(ID_ROUTES.map(name).filter((n) => !registered.has(n))).toEqual([]);
  });

  it('when the gateway serves a merchant route with a {shopId} in its path, then the shop table above covers it', () => {
    const covered = new Set(SHOP_ID_ROUTES.map(name));
    const withShop = routes.filter((r) => r.access === 'merchant' && r.params.includes('shopId'));
    expect(withShop.map(name).filter((n) => !covered.has(n))).toEqual([]);
    const registered = new Set(routes.map(name));
    expect(SHOP_ID_ROUTES.map(name).filter((n) => !registered.has(n))).toEqual([]);
  });

  it("when shop B puts another shop's id into a {shopId} path, then it is 403; its own id is not", async () => {
    const failures: string[] = [];
    for (const r of SHOP_ID_ROUTES) {
      for (const [whose, shopId] of [
        ['shop A', shopA.shopId],
        ['an unknown shop', randomUUID()],
      ]) {
        const res = await http(r.method, `${gateway}${r.route.replace(':shopId', shopId)}`, { token: shopB.apiKey });
        if (res.status !== 403 || res.body?.type !== '/problems/forbidden')
          failures.push(`${name(r)} with ${whose}'s id answered ${res.status}`);
      }
      const own = await http(r.method, `${gateway}${r.route.replace(':shopId', shopB.shopId)}`, {
        token: shopB.apiKey,
      });
      if ([401, 403, 404].includes(own.status))
        failures.push(`${name(r)} with the key's own shop answered ${own.status}`);
    }
    expect(failures).toEqual([]);
  });

  /** Sends a request to every route of the kind with the given credentials; lists those that were not 401. */
  async function notRefused(access: ApiRoute['access'], token: string | undefined): Promise<string[]> {
    const of = routes.filter((r) => r.access === access);
    expect(of.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const r of of) {
      const body = ['POST', 'PUT', 'PATCH'].includes(r.method) ? {} : undefined;
      const base = r.access === 'ops' ? opsUrlOf(gateway) : gateway;
      const res = await http(r.method, `${base}${fill(r, { shopId: shopA.shopId }, randomUUID())}`, {
        ...(token ? { token } : {}),
        ...(body ? { body } : {}),
      });
      if (res.status !== 401 || res.body?.type !== '/problems/unauthorized')
        failures.push(`${name(r)} answered ${res.status}`);
    }
    return failures;
  }

  it('when a shop API key calls any operator route, then it is refused with 401', async () => {
    expect(await notRefused('ops', shopA.apiKey)).toEqual([]);
  });

  it('when the operator token calls any merchant route, then it is refused with 401', async () => {
    expect(await notRefused('merchant', TEST_OPS_TOKEN)).toEqual([]);
  });

  it.each([['merchant'], ['ops']] as const)(
    'when a %s route is called without credentials, then it is 401',
    async (access) => {
      expect(await notRefused(access, undefined)).toEqual([]);
    },
  );

  it('when the right credentials are used, then the same routes do open (the refusals above are about the credentials)', async () => {
    const ops = await http('GET', `${opsUrlOf(gateway)}/ops/v1/shops/${shopA.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
    });
    expect(ops.status).toBe(200);
    const merchant = await http('GET', `${gateway}/order/${ownedByA.order}`, { token: shopA.apiKey });
    expect(merchant.status).toBe(200);
  });
});
