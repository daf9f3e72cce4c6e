import type { Browser, Page } from 'puppeteer-core';
import { eventually, http, saveScreenshot } from '@payments/testing';
import { startClick } from '../support/click';
import { ConsoleBrowser, ConsoleOperator } from '../support/console-browser';
import { aHostedOrder, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aPayoutRequest } from '../support/transfers';
import { untilStatus } from '../support/wait';

/** Luhn-valid visa numbers in the sandbox acquirers' BIN profiles (apps/provider-sandbox README). */
const CARDS = {
  /** Both acquirers take it. */
  ok: '4111111111111111',
  /** Acquirer A (sandbox) answers 503: unavailable, sent again, then B. */
  aDown: '4500000000000007',
  /** A answers 422 (a decline that allows retry): refused, then B. */
  aDeclines: '4501000000000006',
  /** Both A and B answer 422. */
  bothDecline: '4501900000000007',
};

type Sends = {
  provider: string;
  kind: string;
  window: string;
  sends: number;
  accepted: number;
  refused: number;
  unavailable: number;
  timedOut: number;
  successRate: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  lastErrorAt: string | null;
};

/**
 * Issue 30 (decisions 329-331): the console's Providers panel in a real headless Chromium. Card
 * payments go through a shop's route of two sandbox acquirers, so that some sends are accepted,
 * some refused and some unavailable; the panel shows each provider's answers per kind and window,
 * its success rate, p50/p99 latency and last error, and the shop's route, read-only. Screenshots
 * on a desktop and a phone.
 */
describe('the Providers panel in a browser: how each provider is doing, and the routes', () => {
  let c: ConsoleBrowser;
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let viewer: ConsoleOperator;
  let click: Awaited<ReturnType<typeof startClick>>;
  const CLICK_SERVICE = '70003';

  beforeAll(async () => {
    c = await ConsoleBrowser.start({
      shopName: 'Provider Panel Shop',
      checkout: true,
      // A down is sent twice (50 ms apart), then fails over to B.
      extraEnv: { PROVIDER_MAX_ATTEMPTS: '2', PROVIDER_RETRY_BACKOFF_MS: '50', ORDERS_SWEEP_INTERVAL_MS: '0' },
    });
    ({ stack, browser, shop, viewer } = c);
    // Click accounts are configuration read at boot: a callbacks-ingest and a Click that know this shop.
    click = await startClick(stack, {
      shopId: shop.shopId,
      serviceId: CLICK_SERVICE,
      merchantId: '30003',
      secretKey: 'click-panel-secret-key',
    });
  });

  afterAll(async () => {
    await click?.close();
    await c?.stop();
  });

  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token: TEST_OPS_TOKEN, body });
  const orderOf = async (id: string) =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;

  /** A hosted order paid by `card` on its page (a form post, as without JavaScript). */
  async function paidByCard(card: string): Promise<string> {
    const order = await aHostedOrder(stack.gateway!.url, stack.checkout!.url, shop, '100.00', 'USD');
    const res = await fetch(order.link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: `method=card&cardNumber=${card}&expiry=12%2F30`,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    return order.id;
  }

  const cells = (page: Page, selector: string) =>
    page.$eval(selector, (tr) =>
      Object.fromEntries(
        [...tr.querySelectorAll('[data-field]')].map((td) => [td.getAttribute('data-field'), td.textContent]),
      ),
    );

  it('when nothing was sent yet, then the panel says so for the window, and the shop has no route', async () => {
    const report = (await ops('GET', '/providers')).body;
    expect(report).toMatchObject({ windows: ['1h', '24h'], sends: [], callsIn: [], routes: [], unavailable: [] });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await c.signIn(page, viewer.token);
    await page.goto(c.url('/providers'));
    expect(await page.$eval('nav a[aria-current="page"]', (a) => a.textContent)).toBe('Providers');
    const text = await page.$eval('main', (m) => m.textContent ?? '');
    expect(text).toContain('No sends in this window.');
    expect(text).toContain('No shop has a route');
    await saveScreenshot(page, 'console-providers-empty');
    await page.close();
  });

  it('when card payments are accepted, refused and unavailable through a route of two acquirers, then the panel shows each provider’s answers, success rate, latency, last error and the route', async () => {
    const route = await ops('PUT', `/shops/${shop.shopId}/routes/card`, {
      providers: [{ provider: 'sandbox', when: { currencies: ['USD'] } }, { provider: 'sandbox-b' }],
      reason: 'A first, B when A refuses',
    });
    expect(route.status).toBe(200);
    const ids = {
      ok: await paidByCard(CARDS.ok),
      aDown: await paidByCard(CARDS.aDown),
      aDeclines: await paidByCard(CARDS.aDeclines),
      bothDecline: await paidByCard(CARDS.bothDecline),
    };
    for (const key of ['ok', 'aDown', 'aDeclines'] as const)
      await untilStatus(() => orderOf(ids[key]), 'completed', `order ${key} completed`, 30_000);
    await untilStatus(() => orderOf(ids.bothDecline), 'failed', 'order declined by both failed', 30_000);
    const payout = await http('POST', `${stack.gateway!.url}/payouts`, { token: shop.apiKey, body: aPayoutRequest() });
    expect(payout.status).toBe(201);

    // Each order's sends are recorded with its status change; the payout's once the sandbox answered.
    const report = await eventually(
      async () => {
        const r = (await ops('GET', '/providers')).body as { sends: Sends[] };
        return r.sends.some((s) => s.kind === 'payout' && s.window === '1h') ? r : undefined;
      },
      15_000,
      'the payout send on the panel',
    );
    const lastHour = (provider: string, kind = 'payment') =>
      report.sends.find((s) => s.provider === provider && s.kind === kind && s.window === '1h');
    // A: ok accepted; aDown unavailable twice; aDeclines and bothDecline refused.
    expect(lastHour('sandbox')).toEqual({
      provider: 'sandbox',
      kind: 'payment',
      window: '1h',
      sends: 5,
      accepted: 1,
      refused: 2,
      unavailable: 2,
      timedOut: 0,
      successRate: 0.2,
      p50Ms: expect.any(Number),
      p99Ms: expect.any(Number),
      lastErrorAt: expect.any(String),
    });
    // B: aDown and aDeclines accepted after A, bothDecline refused.
    expect(lastHour('sandbox-b')).toMatchObject({
      sends: 3,
      accepted: 2,
      refused: 1,
      unavailable: 0,
      successRate: 0.6667,
    });
    expect(lastHour('sandbox', 'payout')).toMatchObject({ sends: 1, accepted: 1, successRate: 1, lastErrorAt: null });
    const a = lastHour('sandbox')!;
    expect(a.p99Ms!).toBeGreaterThanOrEqual(a.p50Ms!);
    // The last day holds the same sends.
    expect(report.sends.find((s) => s.provider === 'sandbox' && s.kind === 'payment' && s.window === '24h')).toEqual({
      ...a,
      window: '24h',
    });

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await c.signIn(page, viewer.token);
    await page.goto(c.url('/providers'));
    expect(await cells(page, '#sends tr[data-provider="sandbox"][data-kind="payment"]')).toEqual({
      sends: '5',
      accepted: '1',
      refused: '2',
      unavailable: '2',
      timedOut: '0',
      successRate: '20.0 %',
      p50: expect.stringMatching(/^\d+ ms$|^\d+\.\d s$/),
      p99: expect.stringMatching(/^\d+ ms$|^\d+\.\d s$/),
      lastErrorAt: a.lastErrorAt!.replace('T', ' ').slice(0, 19),
    });
    expect(await cells(page, '#sends tr[data-provider="sandbox-b"][data-kind="payment"]')).toMatchObject({
      sends: '3',
      accepted: '2',
      refused: '1',
      successRate: '66.7 %',
    });
    expect(await cells(page, '#sends tr[data-provider="sandbox"][data-kind="payout"]')).toMatchObject({
      sends: '1',
      successRate: '100.0 %',
      lastErrorAt: '—',
    });
    // The low success rate stands out; the route is listed, read-only.
    expect(
      await page.$eval('#sends tr[data-provider="sandbox"][data-kind="payment"] [data-field="successRate"]', (td) =>
        td.classList.contains('bad'),
      ),
    ).toBe(true);
    expect(
      await page.$eval(`#routes tr[data-shop="${shop.shopId}"][data-method="card"]`, (tr) =>
        [...tr.querySelectorAll('li')].map((li) => li.textContent),
      ),
    ).toEqual(['sandbox (USD)', 'sandbox-b']);
    expect(await page.$$('#routes form, #routes button')).toHaveLength(0);
    await saveScreenshot(page, 'console-providers');

    await page.click('a[href="/ops/console/providers?window=24h"]');
    await page.waitForSelector('[data-window="24h"]');
    expect(await cells(page, '#sends tr[data-provider="sandbox"][data-kind="payment"]')).toMatchObject({
      sends: '5',
      successRate: '20.0 %',
    });

    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(c.url('/providers'));
    // Nothing wider than the phone but the tables' own scrolling boxes.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-providers-phone');
    await page.close();
  });

  it('when Click takes payments on its own page, then the panel counts them by their status, apart from our sends', async () => {
    const playClick = async (scenario: string) => {
      const order = await http('POST', `${stack.gateway!.url}/order`, {
        token: shop.apiKey,
        body: { ...anOrderRequest({ amount: '150000.00', currency: 'UZS' }), paymentPageDesign: { format: 'hosted' } },
      });
      expect(order.status).toBe(201);
      const res = await fetch(`${click.click.url}/click/scenarios/${scenario}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orderId: order.body.id, amount: '150000', serviceId: CLICK_SERVICE }),
      });
      expect(res.status).toBe(200);
      return order.body.id as string;
    };
    const paid = [await playClick('pay'), await playClick('pay')];
    for (const id of paid) await untilStatus(() => orderOf(id), 'completed', `order ${id} paid with Click`);
    const callsIn = await eventually(
      async () => {
        const r = (await ops('GET', '/providers')).body as {
          callsIn: { provider: string; window: string; attempts: number }[];
        };
        const found = r.callsIn.find((x) => x.provider === 'click' && x.window === '1h');
        return found && found.attempts >= 2 ? found : undefined;
      },
      15_000,
      'Click on the panel',
    );
    expect(callsIn).toMatchObject({ provider: 'click', window: '1h', attempts: 2, success: 2, failed: 0, pending: 0 });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await c.signIn(page, viewer.token);
    await page.goto(c.url('/providers'));
    expect(await cells(page, '#calls-in tr[data-provider="click"]')).toMatchObject({ success: '2' });
    // Click is not among our sends: it calls us.
    expect(await page.$$('#sends tr[data-provider="click"]')).toHaveLength(0);
    await saveScreenshot(page, 'console-providers-click');
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.reload();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-providers-click-phone');
    await page.close();
  });

  it('when the window asked for is not one the panel knows, then it shows the last hour', async () => {
    const page = await browser.newPage();
    await c.signIn(page, viewer.token);
    await page.goto(c.url('/providers?window=<script>'));
    expect(await page.$eval('[data-window]', (p) => p.getAttribute('data-window'))).toBe('1h');
    await page.close();
  });
});
