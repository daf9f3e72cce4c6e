import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { Client } from 'pg';
import { loadBackofficeConfig, RunningBackoffice, startBackoffice } from '@payments/apps/backoffice';
import { http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * Named operators (issue 15 item 1): an admin creates them through /ops/v1, each with its own token
 * stored hashed; the configured OPS_TOKEN is the first admin; a viewer changes nothing; every change
 * writes an audit record (who, when, what, object, before and after, reason) that GET /ops/v1/audit
 * lists with filters.
 */
describe('named operators and the audit log', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway'] });
    shop = await aShop(stack.gateway!.url, 'Audit Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const ops = (token: string, method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}${path}`, { token, body });
  const admin = (method: string, path: string, body?: unknown) => ops(TEST_OPS_TOKEN, method, path, body);

  async function anOperator(name: string, role: string): Promise<{ id: string; token: string }> {
    const created = await admin('POST', '/ops/v1/operators', { name, role });
    expect(created.status).toBe(201);
    return created.body;
  }

  it('when an admin creates an operator, then the token is answered once, stored only hashed, and opens /ops/v1 under its name', async () => {
    const created = await admin('POST', '/ops/v1/operators', { name: 'Alice Martin', role: 'operator' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Alice Martin',
      role: 'operator',
      status: 'active',
      createdBy: 'OPS_TOKEN',
    });
    expect(created.body.token).toMatch(/^op_[A-Za-z0-9_-]{43}$/);

    const stored = await db.query(`SELECT * FROM backoffice.operators WHERE id = $1`, [created.body.id]);
    expect(JSON.stringify(stored.rows[0])).not.toContain(created.body.token);
    expect(stored.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);

    const me = await ops(created.body.token, 'GET', '/ops/v1/me');
    expect(me.body).toEqual({ id: created.body.id, name: 'Alice Martin', role: 'operator' });
    expect((await admin('GET', '/ops/v1/me')).body).toEqual({ id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' });

    const listed = await admin('GET', '/ops/v1/operators');
    expect(listed.body.items.map((o: { name: string }) => o.name)).toContain('Alice Martin');
    expect(listed.text).not.toContain(created.body.token);

    const again = await admin('POST', '/ops/v1/operators', { name: 'alice martin', role: 'viewer' });
    expect(again.status).toBe(409);
  });

  it('when a viewer tries any change, then 403 and nothing changes; reads work', async () => {
    const viewer = await anOperator('Victor Viewer', 'viewer');
    const before = await ops(viewer.token, 'GET', `/ops/v1/shops/${shop.shopId}/settings`);
    expect(before.status).toBe(200);

    const changes: [string, string, unknown][] = [
      [
        'PATCH',
        `/ops/v1/shops/${shop.shopId}/settings`,
        { autoFinalizeNeedAction: !before.body.autoFinalizeNeedAction },
      ],
      ['POST', '/ops/v1/companies', { name: 'Viewer Co' }],
      ['POST', `/ops/v1/shops/${shop.shopId}/api-keys`, {}],
      ['POST', '/ops/v1/operators', { name: 'Mallory', role: 'admin' }],
    ];
    const auditCount = async () =>
      Number((await db.query('SELECT count(*) FROM backoffice_audit.audit_log')).rows[0].count);
    const companies = async () => Number((await db.query('SELECT count(*) FROM gateway.companies')).rows[0].count);
    const [audits0, companies0] = [await auditCount(), await companies()];
    for (const [method, path, body] of changes) {
      const res = await ops(viewer.token, method, path, body);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.detail).toContain('viewer');
    }
    expect((await ops(viewer.token, 'GET', `/ops/v1/shops/${shop.shopId}/settings`)).body).toEqual(before.body);
    expect(await companies()).toBe(companies0);
    expect(await auditCount()).toBe(audits0);
    expect((await db.query(`SELECT 1 FROM backoffice.operators WHERE name = 'Mallory'`)).rowCount).toBe(0);

    // An operator may change settings but not manage operators or keys.
    const operator = await anOperator('Olga Operator', 'operator');
    expect((await ops(operator.token, 'POST', '/ops/v1/operators', { name: 'Eve', role: 'admin' })).status).toBe(403);
    expect((await ops(operator.token, 'POST', `/ops/v1/shops/${shop.shopId}/api-keys`, {})).status).toBe(403);
  });

  it('when an operator changes settings, then the audit record says who, when, what, on which object, before, after and why', async () => {
    const operator = await anOperator('Sam Settings', 'operator');
    const before = await admin('GET', `/ops/v1/shops/${shop.shopId}/settings`);
    const startedAt = new Date();
    const changed = await ops(operator.token, 'PATCH', `/ops/v1/shops/${shop.shopId}/settings`, {
      amountDeviation: { lowerPercent: '2', upperPercent: '3' },
    });
    expect(changed.status).toBe(200);

    const page = await admin('GET', `/ops/v1/audit?operatorId=${operator.id}`);
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    const record = page.body.items[0];
    expect(record).toMatchObject({
      operator: { id: operator.id, name: 'Sam Settings', role: 'operator' },
      action: 'shop.settings.update',
      object: { type: 'shop', id: shop.shopId },
      before: before.body,
      after: changed.body,
      request: `PATCH /ops/v1/shops/${shop.shopId}/settings`,
    });
    expect(new Date(record.at).getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 1000);
    expect(record.before.amountDeviation).not.toEqual(record.after.amountDeviation);

    const byObject = await admin(
      'GET',
      `/ops/v1/audit?objectType=shop&objectId=${shop.shopId}&action=shop.settings.update`,
    );
    expect(byObject.body.items.map((r: { id: string }) => r.id)).toEqual([record.id]);
    const none = await admin('GET', `/ops/v1/audit?operatorId=${operator.id}&from=2099-01-01T00:00:00Z`);
    expect(none.body).toEqual({ items: [], nextCursor: null });
  });

  it('when an action answers a secret, then the audit record keeps the reason and never the secret', async () => {
    const created = await admin('POST', `/ops/v1/shops/${shop.shopId}/api-keys`, {});
    const revoked = await admin('POST', `/ops/v1/shops/${shop.shopId}/api-keys/${created.body.id}/revoke`, {
      reason: 'Key pasted into a ticket',
    });
    expect(revoked.status).toBe(200);
    const page = await admin('GET', `/ops/v1/audit?objectType=api-key&objectId=${created.body.id}`);
    expect(page.body.items.map((r: { action: string }) => r.action)).toEqual(['api-key.revoke', 'api-key.create']);
    expect(page.body.items[0].reason).toBe('Key pasted into a ticket');
    expect(page.body.items[0].before).toMatchObject({ id: created.body.id, status: 'active' });
    expect(page.body.items[0].after).toMatchObject({ id: created.body.id, status: 'revoked' });
    expect(page.body.items[1].operator).toEqual({ id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' });
    const everything = (await db.query('SELECT before, after FROM backoffice_audit.audit_log')).rows;
    expect(JSON.stringify(everything)).not.toContain(created.body.apiKey);
    expect(JSON.stringify(everything)).not.toContain(shop.callbackSecret);
  });

  it('when an admin disables an operator, then its token gets 401 from the next request on, and the record has before and after', async () => {
    const leaving = await anOperator('Leo Leaving', 'operator');
    expect((await ops(leaving.token, 'GET', '/ops/v1/me')).status).toBe(200);
    const disabled = await admin('POST', `/ops/v1/operators/${leaving.id}/disable`, { reason: 'Left the team' });
    expect(disabled.status).toBe(200);
    expect(disabled.body.status).toBe('disabled');
    expect((await ops(leaving.token, 'GET', '/ops/v1/me')).status).toBe(401);
    const record = (await admin('GET', `/ops/v1/audit?action=operator.disable&objectId=${leaving.id}`)).body.items[0];
    expect(record).toMatchObject({
      before: { status: 'active' },
      after: { status: 'disabled' },
      reason: 'Left the team',
    });
  });

  it('when /ops is asked on the merchant port, then 404 as for a path that does not exist, even with the operator token', async () => {
    for (const path of ['/ops/v1/me', '/ops/v1/companies', '/ops/v1/audit', '/ops/console', '/ops']) {
      const res = await fetch(`${stack.gateway!.url}${path}`, {
        headers: { authorization: `Bearer ${TEST_OPS_TOKEN}` },
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(await (await fetch(`${stack.gateway!.url}/no-such-path`)).json());
    }
    // And the operators' listener answers only the operator surface, its document and health.
    expect((await fetch(`${stack.backoffice!.url}/order`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${stack.backoffice!.url}/docs/openapi.json`)).status).toBe(200);
    expect((await admin('GET', '/ops/v1/me')).status).toBe(200);
  });

  it('when /ops is spelled another way on the merchant port, then the same 404 as an unknown path', async () => {
    // Sent as written: fetch would resolve dot segments; the router decodes percent-escapes.
    const raw = (path: string) =>
      new Promise<{ status: number; body: string; type: string | undefined }>((resolve, reject) => {
        const req = request(
          `${stack.gateway!.url}${path}`,
          { headers: { authorization: `Bearer ${TEST_OPS_TOKEN}` } },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, body, type: res.headers['content-type'] }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const unknown = await raw('/no-such-path');
    expect(unknown.status).toBe(404);
    for (const path of [
      '/%6Fps/v1/me',
      '/o%70s/console/sign-in',
      '/%6fps/console',
      '/%4Fps/v1/me',
      '//ops/v1/me',
      '/ops/../ops/v1/me',
      '/ops%2Fv1/me',
    ]) {
      const res = await raw(path);
      expect({ path, status: res.status, type: res.type }).toEqual({ path, status: 404, type: unknown.type });
      expect(JSON.parse(res.body)).toEqual(JSON.parse(unknown.body));
    }
    // The operators' listener still answers the operator surface however it is spelled.
    expect(
      (await fetch(`${stack.backoffice!.url}/%6Fps/v1/me`, { headers: { authorization: `Bearer ${TEST_OPS_TOKEN}` } }))
        .status,
    ).toBe(200);
  });

  it('when OPS_TOKEN is rotated, then console sessions signed in with the old one open nothing', async () => {
    const signIn = await fetch(`${stack.backoffice!.url}/ops/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_OPS_TOKEN }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const me = (backoffice: RunningBackoffice) => fetch(`${backoffice.url}/ops/v1/me`, { headers: { cookie } });
    expect((await me(stack.backoffice!)).status).toBe(200);
    // Another instance on the same database, deployed with a new OPS_TOKEN.
    const rotated = await startBackoffice(
      loadBackofficeConfig(stack.env({ OPS_TOKEN: 'ops-rotated-token-9876543210' })),
      0,
    );
    try {
      expect((await me(rotated)).status).toBe(401);
      expect((await fetch(`${rotated.url}/ops/console`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
    } finally {
      await rotated.close();
    }
    // The instance that still has the token it was signed in with keeps it.
    expect((await me(stack.backoffice!)).status).toBe(200);
  });

  it('when the console audit page gets a repeated filter, then it ignores it rather than failing', async () => {
    const signIn = await fetch(`${stack.backoffice!.url}/ops/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_OPS_TOKEN }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const page = await fetch(`${stack.backoffice!.url}/ops/console/audit?action=a&action=b&objectId=x&objectId=y`, {
      headers: { cookie },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('when the console is reached over https, then the session cookie is __Host- prefixed; over http it keeps its plain name', async () => {
    const signIn = (headers: Record<string, string>) =>
      fetch(`${stack.backoffice!.url}/ops/console/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ token: TEST_OPS_TOKEN }),
      });
    // TLS ends at the ingress, which says so in X-Forwarded-Proto (trusted from loopback).
    const https = { 'x-forwarded-proto': 'https' };
    const secure = (await signIn(https)).headers.get('set-cookie')!;
    expect(secure).toMatch(/^__Host-ops_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Secure; Max-Age=28800$/);
    const id = secure.split(';')[0].split('=')[1];
    const me = (cookie: string, headers: Record<string, string> = {}) =>
      fetch(`${stack.backoffice!.url}/ops/v1/me`, { headers: { cookie, ...headers } });
    expect((await me(`__Host-ops_session=${id}`, https)).status).toBe(200);
    // The console page reads /ops/v1 with the same session.
    expect(
      (
        await fetch(`${stack.backoffice!.url}/ops/console/audit`, {
          headers: { cookie: `__Host-ops_session=${id}`, ...https },
        })
      ).status,
    ).toBe(200);
    // Each scheme reads only its own name: a plain cookie is nothing over https.
    expect((await me(`ops_session=${id}`, https)).status).toBe(401);

    const plain = (await signIn({})).headers.get('set-cookie')!;
    expect(plain).toMatch(/^ops_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/ops; Max-Age=28800$/);
    expect((await me(plain.split(';')[0])).status).toBe(200);
  });

  it('when a console session goes unused for 30 minutes, then it opens nothing; each use renews it', async () => {
    const signIn = await fetch(`${stack.backoffice!.url}/ops/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_OPS_TOKEN }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const idHash = createHash('sha256').update(cookie.split('=')[1]).digest('hex');
    const me = () => fetch(`${stack.backoffice!.url}/ops/v1/me`, { headers: { cookie } });
    const lastUsed = (minutesAgo: number) =>
      db.query(
        `UPDATE backoffice.console_sessions SET last_used_at = now() - make_interval(mins => $2) WHERE id_hash = $1`,
        [idHash, minutesAgo],
      );
    await lastUsed(29);
    expect((await me()).status).toBe(200);
    const renewed = await db.query(
      `SELECT last_used_at > now() - interval '1 minute' AS fresh FROM backoffice.console_sessions WHERE id_hash = $1`,
      [idHash],
    );
    expect(renewed.rows[0].fresh).toBe(true);
    await lastUsed(31);
    expect((await me()).status).toBe(401);
  });

  it('when the input is bad, then 400 naming the field and nothing is created', async () => {
    const bad = await admin('POST', '/ops/v1/operators', { name: 'Bob', role: 'root' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['role']);
    expect((await db.query(`SELECT 1 FROM backoffice.operators WHERE name = 'Bob'`)).rowCount).toBe(0);
    const badFilter = await admin('GET', '/ops/v1/audit?from=yesterday');
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.errors.map((e: { path: string }) => e.path)).toEqual(['from']);
    const noReason = await admin('POST', `/ops/v1/operators/00000000-0000-4000-8000-000000000000/disable`, {});
    expect(noReason.status).toBe(400);
    expect(new Set(noReason.body.errors.map((e: { path: string }) => e.path))).toEqual(new Set(['reason']));
  });
});
