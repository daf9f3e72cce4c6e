import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually, http, HttpResult } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * Shop API keys through the operator API, and what the merchant API makes of them: every way a
 * key can be bad is the same 401, a revocation is immediate, a rotation keeps the old key working
 * for the overlap and no longer.
 */
describe('merchant API keys: created, listed, revoked and rotated by operators', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders'] });
    shop = await aShop(stack.gateway!.url, 'Keys Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const url = (path: string) => `${path.startsWith('/ops/') ? stack.backoffice!.url : stack.gateway!.url}${path}`;
  const ops = (method: string, path: string, body?: unknown) =>
    http(method, url(path), { token: TEST_OPS_TOKEN, body });
  /** A merchant call that succeeds only with a valid key (the order is created by the orders service). */
  const createOrder = (headers: Record<string, string>) =>
    http('POST', url('/order'), { headers, body: anOrderRequest() });
  const withKey = (key: string) => ({ authorization: `Bearer ${key}` });

  async function newKey(
    shopId = shop.shopId,
    body: Record<string, unknown> = {},
  ): Promise<{ id: string; apiKey: string }> {
    const created = await ops('POST', `/ops/v1/shops/${shopId}/api-keys`, body);
    expect(created.status).toBe(201);
    return created.body;
  }

  function expectSame401(results: HttpResult[]): void {
    for (const r of results) {
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body).toEqual(results[0].body);
    }
    expect(results[0].body).toEqual({
      type: '/problems/unauthorized',
      title: 'Authentication is required',
      status: 401,
      detail: expect.any(String),
    });
  }

  it('when an operator creates a key, then it is shown once, works at once, and the list shows its prefix and dates but never the key', async () => {
    const created = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys`, {
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      id: expect.any(String),
      apiKey: expect.stringMatching(/^sk_/),
      prefix: created.body.apiKey.slice(0, 10),
      status: 'active',
      revokedAt: null,
    });
    expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.now());

    expect((await createOrder(withKey(created.body.apiKey))).status).toBe(201);

    // Use is recorded off the request path: poll until it shows.
    const list = await eventually(
      async () => {
        const r = await ops('GET', `/ops/v1/shops/${shop.shopId}/api-keys`);
        return r.body.items.find(
          (k: { id: string; lastUsedAt: string | null }) => k.id === created.body.id && k.lastUsedAt,
        )
          ? r
          : undefined;
      },
      10_000,
      'lastUsedAt',
    );
    expect(list.status).toBe(200);
    const listed = list.body.items.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      shopId: shop.shopId,
      prefix: created.body.apiKey.slice(0, 10),
      status: 'active',
      createdAt: expect.any(String),
      expiresAt: created.body.expiresAt,
      revokedAt: null,
      lastUsedAt: expect.any(String),
    });
    // The shop's first key (from creating the shop) is listed too.
    expect(list.body.items.length).toBeGreaterThanOrEqual(2);
    expect(list.text).not.toContain(created.body.apiKey);
    const stored = await db.query('SELECT key_hash FROM gateway.api_keys WHERE id = $1', [created.body.id]);
    expect(stored.rows[0].key_hash).not.toContain(created.body.apiKey);
    expect(list.text).not.toContain(stored.rows[0].key_hash);
  });

  it('when a key is missing, malformed, unknown, revoked or expired, then each answer is the same 401 problem', async () => {
    const revoked = await newKey();
    expect((await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${revoked.id}/revoke`)).status).toBe(200);
    const expired = await newKey();
    expect(
      (await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${expired.id}/rotate`, { overlapSeconds: 0 })).status,
    ).toBe(201);

    const answers = [
      await createOrder({}),
      await createOrder({ authorization: 'Bearer' }),
      await createOrder({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
      await createOrder({ authorization: 'Bearer not a key' }),
      await createOrder(withKey('sk_' + randomBytes(32).toString('base64url'))),
      await createOrder(withKey(revoked.apiKey)),
      await createOrder(withKey(expired.apiKey)),
      await http('GET', url(`/order/${randomUUID()}`), { token: expired.apiKey }),
    ];
    expectSame401(answers);
  });

  it('when a key is revoked, then the very next request with it is 401 while another key of the shop keeps working', async () => {
    const key = await newKey();
    const other = await newKey();
    expect((await createOrder(withKey(key.apiKey))).status).toBe(201);

    const revoked = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, status: 'revoked', revokedAt: expect.any(String) });

    expectSame401([await createOrder(withKey(key.apiKey))]);
    expect((await createOrder(withKey(other.apiKey))).status).toBe(201);
    // Revoking again keeps the first revocation time.
    const again = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${key.id}/revoke`);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('when a key is rotated with an overlap, then the new key works at once and the old one until the overlap ends, then 401', async () => {
    const old = await newKey();
    const rotated = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${old.id}/rotate`, { overlapSeconds: 2 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      apiKey: expect.stringMatching(/^sk_/),
      status: 'active',
      previous: { id: old.id, status: 'active', expiresAt: expect.any(String) },
    });
    const overlapEnd = Date.parse(rotated.body.previous.expiresAt);
    expect(overlapEnd).toBeGreaterThan(Date.now() - 5000);
    expect(overlapEnd).toBeLessThan(Date.now() + 10_000);

    expect((await createOrder(withKey(rotated.body.apiKey))).status).toBe(201);
    expect((await createOrder(withKey(old.apiKey))).status).toBe(201);
    // The old key stops on its own once the overlap is over: poll for it, no fixed sleep.
    const refused = await eventually(
      async () => {
        const r = await http('GET', url(`/order/${randomUUID()}`), { token: old.apiKey });
        return r.status === 401 ? r : undefined;
      },
      15_000,
      'the old key to be refused',
    );
    expectSame401([refused]);
    expect((await createOrder(withKey(rotated.body.apiKey))).status).toBe(201);

    // Only an active key can be rotated.
    const again = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${old.id}/rotate`, { overlapSeconds: 60 });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ type: '/problems/conflict', currentStatus: 'expired' });
  });

  it('when a shop or key does not exist or the key is of another shop, then every key route answers 404', async () => {
    const otherShop = await aShop(stack.gateway!.url, 'Other Keys Shop');
    const otherKeys = await ops('GET', `/ops/v1/shops/${otherShop.shopId}/api-keys`);
    const foreignKeyId = otherKeys.body.items[0].id;
    const unknownShop = randomUUID();
    const answers = [
      await ops('GET', `/ops/v1/shops/${unknownShop}/api-keys`),
      await ops('POST', `/ops/v1/shops/${unknownShop}/api-keys`, {}),
      await ops('POST', `/ops/v1/shops/not-a-uuid/api-keys`, {}),
      await ops('POST', `/ops/v1/shops/${unknownShop}/api-keys/${randomUUID()}/revoke`),
      await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${randomUUID()}/revoke`),
      await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${foreignKeyId}/revoke`),
      await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${foreignKeyId}/rotate`, { overlapSeconds: 0 }),
    ];
    for (const a of answers) expect(a.body).toMatchObject({ type: '/problems/not-found', status: 404 });
    // The other shop's key was not touched.
    expect((await createOrder(withKey(otherShop.apiKey))).status).toBe(201);
  });

  it('when an operator request is invalid, then 400 names each field and no key is made', async () => {
    const before = (await ops('GET', `/ops/v1/shops/${shop.shopId}/api-keys`)).body.items.length;
    const past = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys`, { expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.errors).toEqual([{ path: 'expiresAt', message: 'must lie in the future' }]);
    const bad = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys`, { expiresAt: 'tomorrow', name: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['expiresAt', 'name']);
    const key = await newKey();
    const rotate = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${key.id}/rotate`, { overlapSeconds: -1 });
    expect(rotate.status).toBe(400);
    expect(rotate.body.errors).toEqual([expect.objectContaining({ path: 'overlapSeconds' })]);
    const missing = await ops('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${key.id}/rotate`, {});
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toContain('overlapSeconds');
    expect((await ops('GET', `/ops/v1/shops/${shop.shopId}/api-keys`)).body.items.length).toBe(before + 1);
  });

  it('when a merchant key is sent to an operator route, then it is refused with 401 and nothing is made', async () => {
    const before = (await ops('GET', `/ops/v1/shops/${shop.shopId}/api-keys`)).body.items.length;
    const answers = [
      await http('POST', url(`/ops/v1/shops/${shop.shopId}/api-keys`), { token: shop.apiKey, body: {} }),
      await http('GET', url(`/ops/v1/shops/${shop.shopId}/api-keys`), { token: shop.apiKey }),
      await http('POST', url('/ops/v1/companies'), { token: shop.apiKey, body: { name: 'Sneaky' } }),
      await http('GET', url(`/ops/v1/shops/${shop.shopId}/settings`), { token: shop.apiKey }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body).toMatchObject({ type: '/problems/unauthorized' });
    }
    expect((await ops('GET', `/ops/v1/shops/${shop.shopId}/api-keys`)).body.items.length).toBe(before);
    expect(Number((await db.query("SELECT count(*) FROM gateway.companies WHERE name = 'Sneaky'")).rows[0].count)).toBe(
      0,
    );
  });
});
