import type { Browser, Page } from 'puppeteer-core';
import { eventually, http, saveScreenshot } from '@payments/testing';
import { ConsoleBrowser, ConsoleOperator } from '../support/console-browser';
import { anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest } from '../support/transfers';

/**
 * The operators' console in a real headless Chromium against the real stack (issue 15 item 3):
 * sign-in with a named operator's token, the overview, the audit log, CSRF on every change, a
 * viewer refused, sign-out. Each step leaves a screenshot (docs/console.md shows some). The
 * operators' work on orders, callbacks, dead letters and transfers: console-work.spec.ts.
 */
describe('the operators console in a browser: sign-in, overview, audit, roles', () => {
  let c: ConsoleBrowser;
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let operator: ConsoleOperator;
  let viewer: ConsoleOperator;

  beforeAll(async () => {
    c = await ConsoleBrowser.start({ shopName: 'Console Shop', extraEnv: { KAFKA_METRICS_INTERVAL_MS: '500' } });
    ({ stack, browser, shop, operator, viewer } = c);
  });

  afterAll(async () => {
    await c?.stop();
  });

  const consoleUrl = (path = '') => c.url(path);
  const signIn = (page: Page, token: string) => c.signIn(page, token);
  const credentialsOf = (page: Page) => c.credentialsOf(page);

  it('when nobody is signed in, then the console shows the sign-in page, and a wrong token is told so in English', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const res = await page.goto(consoleUrl());
    expect(page.url()).toBe(consoleUrl('/sign-in'));
    expect(res!.headers()['content-security-policy']).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Sign in');
    await saveScreenshot(page, 'console-sign-in');

    await page.type('#token', 'op_this-is-not-a-token');
    await page.click('button[type="submit"]');
    await page.waitForSelector('[role="alert"]:not([hidden])');
    expect(await page.$eval('[role="alert"]', (a) => a.textContent)).toBe(
      'That is not a valid operator token, or its operator is disabled. Check it and try again.',
    );
    expect(page.url()).toBe(consoleUrl('/sign-in'));
    await saveScreenshot(page, 'console-sign-in-refused');
    await page.close();
  });

  it('when an operator signs in, then the session cookie is HttpOnly and SameSite=Strict, and the overview shows the consumer groups and backlogs', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    expect(page.url()).toBe(consoleUrl());
    const cookie = (await page.cookies()).find((c) => c.name === 'ops_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ops', secure: false });
    expect(await page.$eval('header .who', (w) => w.textContent)).toContain('Dana Operator');
    // The elected Kafka collector of this gateway reads the orders group (every 500 ms here).
    await page.waitForSelector('tr[data-group="orders"]', { timeout: 20_000 });
    const text = await page.$eval('main', (m) => m.textContent ?? '');
    expect(text).toContain('Consumer groups');
    expect(text).toContain('Dead letters');
    expect(text).toContain('Merchant callbacks');
    expect(text).toContain('Outbox');
    expect(await page.$$('svg.spark')).not.toHaveLength(0);
    await saveScreenshot(page, 'console-overview');

    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.reload();
    await page.waitForSelector('tr[data-group="orders"]');
    // Nothing wider than the phone but the tables' own scrolling boxes.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-overview-phone');
    await page.close();
  });

  it('when a change is sent with the session but without its CSRF token, then 403 and nothing changes; with it, the change is made and audited under the operator', async () => {
    const page = await browser.newPage();
    await signIn(page, operator.token);
    const { cookie, csrf } = await credentialsOf(page);
    const url = `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/settings`;
    const before = await http('GET', url, { headers: { cookie } });
    expect(before.status).toBe(200);

    const change = { autoFinalizeNeedAction: !before.body.autoFinalizeNeedAction };
    const forged = await http('PATCH', url, { headers: { cookie }, body: change });
    expect(forged.status).toBe(403);
    expect(forged.body.detail).toContain('CSRF');
    const wrong = await http('PATCH', url, { headers: { cookie, 'x-csrf-token': 'x'.repeat(43) }, body: change });
    expect(wrong.status).toBe(403);
    expect((await http('GET', url, { headers: { cookie } })).body).toEqual(before.body);

    const made = await http('PATCH', url, { headers: { cookie, 'x-csrf-token': csrf }, body: change });
    expect(made.status).toBe(200);
    const audit = await http(
      'GET',
      `${stack.backoffice!.url}/ops/v1/audit?action=shop.settings.update&objectId=${shop.shopId}`,
      {
        token: TEST_OPS_TOKEN,
      },
    );
    expect(audit.body.items[0]).toMatchObject({
      operator: { id: operator.id, name: 'Dana Operator', role: 'operator' },
      before: { autoFinalizeNeedAction: before.body.autoFinalizeNeedAction },
      after: change,
    });

    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(consoleUrl('/audit'));
    const rows = await page.$$eval('main tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(rows[0]).toContain('shop.settings.update');
    expect(rows[0]).toContain('Dana Operator');
    expect(rows.some((r) => r.includes('console.sign-in'))).toBe(true);
    await saveScreenshot(page, 'console-audit');
    await page.type('#f-action', 'shop.settings.update');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type="submit"]')]);
    const filtered = await page.$$eval('main tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((r) => r.includes('shop.settings.update'))).toBe(true);
    await page.close();
  });

  it('when payouts and P2P transactions change status, then the overview counts their transitions beside the orders', async () => {
    const payout = await http('POST', `${stack.gateway!.url}/payouts`, { token: shop.apiKey, body: aPayoutRequest() });
    const p2p = await http('POST', `${stack.gateway!.url}/p2p`, { token: shop.apiKey, body: aP2pRequest() });
    const order = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: anOrderRequest() });
    expect([payout.status, p2p.status, order.status]).toEqual([201, 201, 201]);
    type Transition = { objectType: string; status: string; count: number; last15m: number[] };
    const transitions = await eventually(
      async () => {
        const res = await http('GET', `${stack.backoffice!.url}/ops/v1/overview`, { token: TEST_OPS_TOKEN });
        const found = res.body.transitionsPerMinute as Transition[];
        const types = new Set(found.map((t) => t.objectType));
        return ['order', 'payout', 'p2p'].every((k) => types.has(k)) ? found : undefined;
      },
      15_000,
      'order, payout and P2P transitions on the overview',
    );
    for (const t of transitions) {
      expect(t.count).toBeGreaterThan(0);
      expect(t.last15m[t.last15m.length - 1]).toBe(t.count);
    }

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    await page.waitForSelector('tr[data-transition^="payout:"]', { timeout: 20_000 });
    const rows = await page.$$eval('tr[data-transition]', (trs) => trs.map((tr) => tr.getAttribute('data-transition')));
    expect(rows.some((r) => r!.startsWith('order:'))).toBe(true);
    expect(rows.some((r) => r!.startsWith('p2p:'))).toBe(true);
    const text = await page.$eval('section[aria-labelledby="h-transitions"]', (s) => s.textContent ?? '');
    expect(text).toContain('Payout');
    expect(text).toContain('P2P');
    expect(text).toContain('Changes');
    await saveScreenshot(page, 'console-overview-transitions');
    await page.close();
  });

  it('when a viewer is signed in, then reads work and a change is refused with 403 even with the CSRF token', async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await signIn(page, viewer.token);
    expect(await page.$eval('header .who', (w) => w.textContent)).toContain('(viewer)');
    const { cookie, csrf } = await credentialsOf(page);
    const url = `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/settings`;
    const before = await http('GET', url, { headers: { cookie } });
    const refused = await http('PATCH', url, {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { autoFinalizeNeedAction: !before.body.autoFinalizeNeedAction },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('viewer');
    expect((await http('GET', url, { headers: { cookie } })).body).toEqual(before.body);
    await context.close();
  });

  it('when the operator signs out, then the page says so and the old session cookie opens nothing', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await signIn(page, operator.token);
    const { cookie } = await credentialsOf(page);
    await Promise.all([page.waitForNavigation(), page.click('header .who button[type="submit"]')]);
    expect(page.url()).toBe(consoleUrl('/sign-in?signed-out=1'));
    expect(await page.$eval('.notice', (n) => n.textContent)).toBe('You are signed out.');
    await saveScreenshot(page, 'console-signed-out');

    expect((await http('GET', `${stack.backoffice!.url}/ops/v1/overview`, { headers: { cookie } })).status).toBe(401);
    const again = await fetch(consoleUrl(), { headers: { cookie }, redirect: 'manual' });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/ops/console/sign-in');
    await page.close();
  });

  it('when the orders service stops, then its consumer group lag rises on the overview, and drains when it starts again', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    const lagOfOrders = (test: string) =>
      page.waitForFunction(
        `(() => { const c = document.querySelector('tr[data-group="orders"] td[data-lag]'); return c && (${test})(Number(c.textContent.replace(/,/g, ''))); })()`,
        { timeout: 45_000, polling: 500 },
      );
    // Lag is measured from the group's committed offset on orders.commands: one order answered gives it one.
    const first = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '10.99' }),
    });
    expect(first.status).toBe(201);
    await eventually(
      async () =>
        (await (await fetch(`${stack.gateway!.url}/metrics`)).text()).includes(
          'kafka_consumergroup_lag_sum{consumergroup="orders",topic="orders.commands"} 0',
        ) || undefined,
      30_000,
      'the orders group committed on orders.commands',
    );
    await lagOfOrders('(n) => n === 0');

    const [stopped] = stack.orders!.splice(0, 1);
    await stopped.close();
    // Merchants keep creating orders: the requests wait in orders.commands (each answers 503 in time).
    const requests = await Promise.all(
      [1, 2, 3].map(() =>
        http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: anOrderRequest({ amount: '10.99' }) }),
      ),
    );
    expect(requests.map((r) => r.status)).toEqual([503, 503, 503]);
    await lagOfOrders('(n) => n >= 3');
    await saveScreenshot(page, 'console-overview-lag');

    await stack.startOrders();
    await lagOfOrders('(n) => n === 0');
    await saveScreenshot(page, 'console-overview-drained');
    await page.close();
  });
});
