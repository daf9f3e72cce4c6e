import { Client } from 'pg';
import { KeyRing, openProviderSecret, parseKeyList } from '@payments/card-vault';
import { Topics } from '@payments/contracts';
import { eventually, http, TopicReader } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

const CLICK_KEY = 'click-secret-key-first-0001';
const CLICK_KEY_2 = 'click-secret-key-rotated-02';
const PAYME_KEY = 'payme-cashbox-key-000000001';
const PAYME_MERCHANT = '5e730e8e0b852a417aa49ceb';

/**
 * A shop's accounts with Click and Payme as operator settings (decision 341): an admin sets them
 * through the backoffice with a reason, the provider's folder validates them, the secret is
 * sealed in gateway.shops and on shops.settings and never answered, logged nor audited.
 */
describe('provider accounts: an audited operator setting, the secret sealed', () => {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  let topic: TopicReader;
  let keys: KeyRing;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway'] });
    shop = await aShop(stack.gateway!.url, 'Provider Accounts Shop');
    other = await aShop(stack.gateway!.url, 'Other Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    topic = await TopicReader.start([stack.prefix + Topics.shopsSettings]);
    const parsed = parseKeyList(stack.cardVaultEnv.CARD_VAULT_KEYS);
    if ('problem' in parsed) throw new Error(parsed.problem);
    keys = new KeyRing(parsed.keys);
  });

  afterAll(async () => {
    await topic?.stop();
    await db?.end();
    await stack?.stop();
  });

  const ops = (token: string, method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token, body });
  const admin = (method: string, path: string, body?: unknown) => ops(TEST_OPS_TOKEN, method, path, body);
  const click = (s: TestShop, secretKey: string, serviceId = '70001') => ({
    settings: { serviceId, merchantId: '30001', secretKey },
    reason: 'The merchant signed its Click contract',
  });
  const stored = async (shopId: string) =>
    (await db.query('SELECT provider_accounts, settings_version FROM gateway.shops WHERE id = $1', [shopId])).rows[0];

  async function anOperator(role: string): Promise<string> {
    const created = await admin('POST', '/operators', { name: `A ${role} ${Math.random()}`, role });
    expect(created.status).toBe(201);
    return created.body.token;
  }

  it('when no admin asks, then 401 or 403 and nothing changes; a viewer reads', async () => {
    const before = await stored(shop.shopId);
    expect(
      (await ops('wrong-token-000000000', 'PUT', `/shops/${shop.shopId}/providers/click`, click(shop, CLICK_KEY)))
        .status,
    ).toBe(401);
    expect(
      (await ops(await anOperator('operator'), 'PUT', `/shops/${shop.shopId}/providers/click`, click(shop, CLICK_KEY)))
        .status,
    ).toBe(403);
    const viewer = await anOperator('viewer');
    expect((await ops(viewer, 'PUT', `/shops/${shop.shopId}/providers/click`, click(shop, CLICK_KEY))).status).toBe(
      403,
    );
    expect((await ops(viewer, 'DELETE', `/shops/${shop.shopId}/providers/click`, { reason: 'x' })).status).toBe(403);
    expect((await ops(viewer, 'GET', `/shops/${shop.shopId}/providers/click`)).status).toBe(404);
    expect(await stored(shop.shopId)).toEqual(before);
  });

  it('when the settings are wrong, then 400 names each field, never shows the secret, and nothing changes', async () => {
    const before = await stored(shop.shopId);
    const bad = await admin('PUT', `/shops/${shop.shopId}/providers/click`, {
      settings: { serviceId: 'abc', merchantId: '30001', secretKey: 'short', extra: CLICK_KEY },
      reason: 'r',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'settings.extra',
      'settings.secretKey',
      'settings.serviceId',
    ]);
    expect(bad.text).not.toContain('short');
    expect(bad.text).not.toContain(CLICK_KEY);
    const noKey = await admin('PUT', `/shops/${shop.shopId}/providers/payme`, {
      settings: { merchantId: PAYME_MERCHANT },
      reason: 'r',
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.errors).toEqual([{ path: 'settings.key', message: 'is required' }]);
    const noReason = await admin('PUT', `/shops/${shop.shopId}/providers/click`, {
      settings: click(shop, CLICK_KEY).settings,
    });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('reason');
    expect(noReason.text).not.toContain(CLICK_KEY);
    const sandbox = await admin('PUT', `/shops/${shop.shopId}/providers/sandbox`, click(shop, CLICK_KEY));
    expect(sandbox.status).toBe(400);
    expect(sandbox.body.errors).toEqual([{ path: 'provider', message: expect.stringContaining('click, payme') }]);
    expect(
      (await admin('PUT', `/shops/00000000-0000-4000-8000-000000000000/providers/click`, click(shop, CLICK_KEY)))
        .status,
    ).toBe(404);
    expect(await stored(shop.shopId)).toEqual(before);
  });

  it('when an admin sets the Click account, then the answer, the row, the topic and the audit hold no clear key', async () => {
    const set = await admin('PUT', `/shops/${shop.shopId}/providers/click`, click(shop, CLICK_KEY));
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      shopId: shop.shopId,
      provider: 'click',
      settings: { serviceId: '70001', merchantId: '30001' },
      secretSet: true,
      updatedAt: expect.any(String),
    });
    expect((await admin('GET', `/shops/${shop.shopId}/providers/click`)).body).toEqual(set.body);
    const row = await stored(shop.shopId);
    const sealed: string = row.provider_accounts.click.secretKey;
    expect(sealed).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(CLICK_KEY);
    expect(openProviderSecret(keys, shop.shopId, 'click', sealed)).toBe(CLICK_KEY);

    const published = await eventually(async () => {
      const m = topic.messages.filter((x) => x.key === shop.shopId && x.json?.payload?.providerAccounts?.click);
      expect(m.length).toBeGreaterThan(0);
      return m[m.length - 1];
    });
    expect(published.value).not.toContain(CLICK_KEY);
    expect(published.json.payload.providerAccounts.click).toMatchObject({
      serviceId: '70001',
      secretKey: expect.stringMatching(/^v1:/),
    });
    // Its public ids beside it, for orders and the payment page (decision 342): no secret member.
    expect(published.json.payload.providerIds).toEqual({
      click: { serviceId: '70001', merchantId: '30001' },
    });
    const outbox = await db.query(`SELECT envelope::text AS e FROM gateway.outbox WHERE envelope::text LIKE $1`, [
      `%${CLICK_KEY}%`,
    ]);
    expect(outbox.rows).toEqual([]);

    const audit = (await admin('GET', '/audit?action=shop.provider-account.set')).body.items;
    expect(audit).toEqual([
      expect.objectContaining({
        reason: 'The merchant signed its Click contract',
        object: { type: 'shop', id: shop.shopId },
        before: null,
        after: set.body,
      }),
    ]);
    const auditRows = await db.query('SELECT row_to_json(a)::text AS r FROM backoffice_audit.audit_log a');
    for (const r of auditRows.rows) {
      expect(r.r).not.toContain(CLICK_KEY);
      expect(r.r).not.toContain(sealed);
    }
    // The shop's settings, as operators and the other services read them, carry no account.
    const settings = await admin('GET', `/shops/${shop.shopId}/settings`);
    expect(settings.body).not.toHaveProperty('providerAccounts');
  });

  it("when another shop names the same Click service, then 409 and that shop's account is unchanged", async () => {
    const taken = await admin('PUT', `/shops/${other.shopId}/providers/click`, click(other, 'another-key-0000000'));
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('settings.serviceId');
    expect((await stored(other.shopId)).provider_accounts).toEqual({});
  });

  it('when the key is changed, then the new one is sealed in its place and the audit has the old public part as before', async () => {
    const first = (await admin('GET', `/shops/${shop.shopId}/providers/click`)).body;
    const version = (await stored(shop.shopId)).settings_version;
    const set = await admin('PUT', `/shops/${shop.shopId}/providers/click`, {
      ...click(shop, CLICK_KEY_2),
      reason: 'Key rotated in the Click cabinet',
    });
    expect(set.status).toBe(200);
    const row = await stored(shop.shopId);
    expect(row.settings_version).toBe(version + 1);
    expect(openProviderSecret(keys, shop.shopId, 'click', row.provider_accounts.click.secretKey)).toBe(CLICK_KEY_2);
    const audit = (await admin('GET', '/audit?action=shop.provider-account.set')).body.items;
    expect(audit[0]).toMatchObject({ reason: 'Key rotated in the Click cabinet', before: first, after: set.body });
  });

  it('when a Payme cashbox is set beside Click, then both are kept; deleting one leaves the other', async () => {
    const set = await admin('PUT', `/shops/${shop.shopId}/providers/payme`, {
      settings: { merchantId: PAYME_MERCHANT, key: PAYME_KEY },
      reason: 'Payme cashbox opened',
    });
    expect(set.status).toBe(200);
    expect(set.text).not.toContain(PAYME_KEY);
    const row = await stored(shop.shopId);
    expect(Object.keys(row.provider_accounts).sort()).toEqual(['click', 'payme']);
    expect(openProviderSecret(keys, shop.shopId, 'payme', row.provider_accounts.payme.key)).toBe(PAYME_KEY);

    expect((await admin('DELETE', `/shops/${shop.shopId}/providers/click`, {})).status).toBe(400);
    const deleted = await admin('DELETE', `/shops/${shop.shopId}/providers/click`, { reason: 'Contract ended' });
    expect(deleted.status).toBe(204);
    expect((await admin('GET', `/shops/${shop.shopId}/providers/click`)).status).toBe(404);
    expect((await admin('DELETE', `/shops/${shop.shopId}/providers/click`, { reason: 'again' })).status).toBe(404);
    expect(Object.keys((await stored(shop.shopId)).provider_accounts)).toEqual(['payme']);
    const audit = (await admin('GET', '/audit?action=shop.provider-account.delete')).body.items;
    expect(audit).toEqual([
      expect.objectContaining({
        reason: 'Contract ended',
        before: expect.objectContaining({ provider: 'click' }),
        after: null,
      }),
    ]);
    await eventually(async () => {
      const m = topic.messages.filter((x) => x.key === shop.shopId);
      expect(Object.keys(m[m.length - 1].json.payload.providerAccounts)).toEqual(['payme']);
      return true;
    });
  });
});
