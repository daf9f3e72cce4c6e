import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { Browser, Page } from 'puppeteer-core';
import { ProcessingTimeoutSweeper } from '@payments/apps/orders';
import {
  eventually,
  http,
  launchBrowser,
  saveScreenshot,
  scanDatabaseForCards,
  scanTopicsForCards,
} from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { submitAtOnce } from '../support/browser-forms';
import { untilStatus } from '../support/wait';

/**
 * Hosted payment pages (issue 20) in a real headless Chromium against the real stack: the
 * merchant creates a hosted order, the payer opens its link, pays by card, and lands on the
 * merchant's success URL; a wrong BIN is refused inline; two tabs pay once; an expired link is a
 * 410 page and a failed order with its callback. Each test leaves screenshots (.run/screenshots).
 */
describe('hosted payment page: a payer pays an order by card in a real browser', () => {
  let stack: TestStack;
  let db: Client;
  let browser: Browser;
  let merchant: CallbackReceiver;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await TestStack.start({ checkout: true, extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '0' } });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    merchant = await CallbackReceiver.start('/shop');
    browser = await launchBrowser();
    shop = await hostedShop();
  });

  afterAll(async () => {
    await browser?.close();
    await merchant?.stop();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  /** The merchant's receiver doubles as its shop site: the page sends the payer back there. */
  const site = () => merchant.url.replace('127.0.0.1', 'localhost');

  async function hostedShop(settings: Record<string, unknown> = {}): Promise<TestShop> {
    const s = await aShop(gw(), 'Chorsu Bazaar');
    const res = await http('PATCH', `${opsUrlOf(gw())}/ops/v1/shops/${s.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { callbackUrl: merchant.url, redirectDomains: ['localhost'], ...settings },
    });
    expect(res.status).toBe(200);
    await eventually(
      async () => {
        const r = await db.query('SELECT version FROM orders.shop_settings WHERE shop_id = $1', [s.shopId]);
        return r.rows[0]?.version === res.body.version ? true : undefined;
      },
      15000,
      'settings in orders',
    );
    return s;
  }

  async function hostedOrder(
    over: { amount?: string; currency?: string } = {},
    extra: Record<string, unknown> = {},
    s: TestShop = shop,
  ) {
    const res = await http('POST', `${gw()}/order`, {
      token: s.apiKey,
      body: {
        ...anOrderRequest({ amount: '125000.00', currency: 'UZS', ...over }),
        paymentPageDesign: { format: 'hosted' },
        redirectUrls: { success: `${site()}/paid?ref=1003`, failure: `${site()}/not-paid` },
        ...extra,
      },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  const orderOf = async (id: string, s: TestShop = shop) =>
    (await http('GET', `${gw()}/order/${id}`, { token: s.apiKey })).body;
  const dispatches = async (id: string) =>
    (await db.query('SELECT count(*)::int AS n FROM orders.provider_dispatches WHERE order_id = $1', [id])).rows[0].n;

  async function openPage(link: string, width = 1280, height = 900, lang = 'en-US'): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width, height });
    await page.setExtraHTTPHeaders({ 'accept-language': lang });
    await page.goto(link, { waitUntil: 'load' });
    return page;
  }

  async function typeCard(page: Page, number: string, expiry = '12/30') {
    await page.type('#cardNumber', number);
    await page.type('#expiry', expiry);
  }

  it('when a merchant creates a hosted order, then it stays registered with a live link whose token is stored only hashed', async () => {
    const order = await hostedOrder();
    expect(order.status).toBe('registered');
    expect(order.data.paymentLink).toMatch(new RegExp(`^${stack.checkout!.url}/pay/o[A-Za-z0-9_-]{64}$`));
    expect(Date.parse(order.data.expiresAt) - Date.now()).toBeGreaterThan(1700_000);
    expect(order.data.paymentLinkStatus).toBe('live');
    const token = order.data.paymentLink.split('/').pop();
    const row = (await db.query('SELECT link_hash FROM orders.orders WHERE id = $1', [order.id])).rows[0];
    expect(row.link_hash).toBe(createHash('sha256').update(token).digest('hex'));
    const dump = JSON.stringify((await db.query('SELECT * FROM orders.orders WHERE id = $1', [order.id])).rows);
    expect(dump).not.toContain(token);
    expect(await dispatches(order.id)).toBe(0);
    const again = await orderOf(order.id);
    expect(again.data.paymentLink).toBe(order.data.paymentLink);
    expect(again.data.expiresAt).toBe(order.data.expiresAt);
  });

  it('when a hosted order is made with an Idempotency-Key, then the replay has the link and no table or topic holds the token', async () => {
    const key = `hosted-${Date.now()}`;
    const body = {
      ...anOrderRequest({ amount: '125000.00', currency: 'UZS' }),
      paymentPageDesign: { format: 'hosted' },
      redirectUrls: { success: `${site()}/paid?ref=1004`, failure: `${site()}/not-paid` },
    };
    const create = () =>
      http('POST', `${gw()}/order`, { token: shop.apiKey, body, headers: { 'idempotency-key': key } });
    const first = await create();
    expect(first.status).toBe(201);
    const token: string = first.body.data.paymentLink.split('/').pop();
    const replay = await create();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-stored-without-payment-link')).toBeNull();
    expect(replay.text).toBe(first.text);
    // Every column of every table of every schema, and every message of every topic.
    const theToken = (text: string) => (text.includes(token) ? [token] : []);
    expect(await scanDatabaseForCards(stack.databaseUrl, theToken)).toEqual([]);
    expect((await scanTopicsForCards(stack.prefix, theToken)).findings).toEqual([]);
  });

  it('when a redirect URL is not on the shop allow-list, then 400 names the field and no order is made', async () => {
    const res = await http('POST', `${gw()}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest({ merchantOrderId: `evil-${Date.now()}` }),
        paymentPageDesign: { format: 'hosted' },
        redirectUrls: { success: 'https://evil.example/phish' },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('redirectUrls.success');
    const n = await db.query('SELECT count(*)::int AS n FROM orders.orders WHERE merchant_order_id LIKE $1', [
      'evil-%',
    ]);
    expect(n.rows[0].n).toBe(0);
  });

  it('when a merchant migrating from the PSP sends its shape (format redirect, paymentSettings.redirectUrls and an instant), then it is a hosted order', async () => {
    const until = new Date(Date.now() + 15 * 60_000).toISOString();
    const res = await http('POST', `${gw()}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest(),
        paymentPageDesign: { alias: 'default', format: 'redirect' },
        paymentSettings: { timeLimit: until, redirectUrls: { success: `${site()}/ok`, failure: `${site()}/ko` } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.expiresAt).toBe(until);
    const row = (await db.query('SELECT redirect_urls FROM orders.orders WHERE id = $1', [res.body.id])).rows[0];
    expect(row.redirect_urls).toEqual({ success: `${site()}/ok`, failure: `${site()}/ko` });
    const tooLong = await http('POST', `${gw()}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest(),
        paymentPageDesign: { format: 'redirect' },
        paymentSettings: { timeLimit: new Date(Date.now() + 2 * 86_400_000).toISOString() },
      },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].path).toBe('paymentSettings.timeLimit');
  });

  it("when the shop's default integration is hosted, then an order without a format gets a link", async () => {
    const hostedByDefault = await hostedShop({ defaultIntegration: 'hosted' });
    const res = await http('POST', `${gw()}/order`, { token: hostedByDefault.apiKey, body: anOrderRequest() });
    expect(res.status).toBe(201);
    expect(res.body.data.paymentLink).toBeDefined();
    const plain = await http('POST', `${gw()}/order`, {
      token: hostedByDefault.apiKey,
      body: { ...anOrderRequest(), paymentPageDesign: { format: 'host_to_host' } },
    });
    expect(plain.body.data.paymentLink).toBeUndefined();
  });

  it('when the payer pays by card, then the order completes and the browser lands on the success URL', async () => {
    const order = await hostedOrder();
    const page = await openPage(order.data.paymentLink);
    expect(await page.$eval('h1', (h) => h.textContent)).toContain('125,000.00 UZS');
    expect(await page.$eval('.shop', (p) => p.textContent)).toContain('Chorsu Bazaar');
    await saveScreenshot(page, 'checkout-order-desktop-en');
    await typeCard(page, '9860 1234 5678 9015');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    await page.waitForFunction(`location.href.startsWith(${JSON.stringify(site())})`, { timeout: 20000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/shop/paid');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ ref: '1003', orderId: order.id, status: 'completed' });
    const done = await untilStatus(() => orderOf(order.id), 'completed', 'hosted order completed');
    expect(done.data.paymentLink).toBeUndefined();
    expect(done.data.paymentLinkStatus).toBe('used');
    // The card went to the vault and the provider; the order keeps its token and masked number only.
    const row = (await db.query('SELECT card_token, card_masked FROM orders.orders WHERE id = $1', [order.id])).rows[0];
    expect(row.card_token).toMatch(/^card_/);
    expect(row.card_masked).toBe('986012******9015');
    await page.close();
  });

  it('when the payer types a card of a scheme the shop does not take, then the error is next to the field and nothing is sent', async () => {
    const order = await hostedOrder();
    const page = await openPage(order.data.paymentLink, 390, 844, 'ru-RU');
    await typeCard(page, '3782 822463 10005');
    await page.click('#submit');
    const error = await page.$eval('#cardNumber-err', (e) => e.textContent);
    expect(error).toContain('Эта карта здесь не принимается');
    expect(await page.$eval('#cardNumber', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('cardNumber');
    await saveScreenshot(page, 'checkout-wrong-bin-phone-ru');
    // The server holds the same rule without JavaScript: a form posted as is gets the same inline error.
    const res = await fetch(order.data.paymentLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: 'method=card&cardNumber=4111111111111112&expiry=12%2F30',
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('The card number is not valid');
    expect(await dispatches(order.id)).toBe(0);
    expect((await orderOf(order.id)).data.paymentLinkStatus).toBe('live');
    await page.close();
  });

  it('when two tabs submit the same link at once, then one payment is made and the other tab is told', async () => {
    const order = await hostedOrder();
    const [a, b] = [await openPage(order.data.paymentLink), await openPage(order.data.paymentLink)];
    await typeCard(a, '4111 1111 1111 1111');
    await typeCard(b, '5555 5555 5555 4444');
    const posted = await submitAtOnce([a, b], 'pay');
    await untilStatus(() => orderOf(order.id), 'completed', 'one payment completed');
    expect(await dispatches(order.id)).toBe(1);
    // One tab followed its payment (303); the other is told with a 409 (section 8), also when it
    // arrives after the payment completed (no 303 to the success URL for a second submit).
    expect(posted.sort()).toEqual([303, 409]);
    const texts = await Promise.all([a, b].map((p) => p.evaluate('document.body.innerText') as Promise<string>));
    const loser = texts.findIndex((t) => t.includes('already used'));
    expect(loser).toBeGreaterThanOrEqual(0);
    await saveScreenshot([a, b][loser], 'checkout-second-tab-409');
    await a.close();
    await b.close();
  });

  it('when the provider declines, then the browser lands on the failure URL', async () => {
    const order = await hostedOrder({ amount: '125000.13' });
    const page = await openPage(order.data.paymentLink, 390, 844, 'uz');
    expect(await page.$eval('html', (h) => h.lang)).toBe('uz');
    await saveScreenshot(page, 'checkout-order-phone-uz');
    await typeCard(page, '8600 1234 5678 9012');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    await page.waitForFunction(`location.href.startsWith(${JSON.stringify(site())})`, { timeout: 20000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/shop/not-paid');
    expect(landed.searchParams.get('status')).toBe('failed');
    expect(landed.searchParams.get('orderId')).toBe(order.id);
    await page.close();
  });

  /** A shop whose payers may also pay in the sandbox's bank app (a method with dataEntryMode instruction). */
  async function appShop(): Promise<TestShop> {
    const s = await hostedShop();
    const res = await http('POST', `${opsUrlOf(gw())}/ops/v1/shops/${s.shopId}/payment-methods`, {
      token: TEST_OPS_TOKEN,
      body: {
        code: 'sandboxpay',
        instrumentType: 'wallet',
        dataEntryMode: 'instruction',
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.dataEntryMode).toBe('instruction');
    return s;
  }

  async function payInApp(link: string, width: number, height: number): Promise<Page> {
    const page = await openPage(link, width, height);
    await page.click('input[value=sandboxpay]');
    expect(await page.$eval('#card-fields', (e) => (e as unknown as { hidden: boolean }).hidden)).toBe(true);
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    return page;
  }

  it('when the payer pays in the app, then a desktop shows the QR, a phone the deeplink, and the bank app approves it', async () => {
    const s = await appShop();
    const order = await hostedOrder({}, {}, s);
    const desktop = await payInApp(order.data.paymentLink, 1280, 900);
    const svg = await desktop.$eval('.qr-code svg', (e) => e.outerHTML);
    expect(svg).toContain('<path');
    const deeplink = await desktop.$eval('#deeplink', (e) => e.getAttribute('href'));
    expect(deeplink).toMatch(/^sandboxpay:\/\/pay\?ref=/);
    expect(deeplink).toContain(`ref=${order.id}`);
    expect(await desktop.$eval('#deeplink', (e) => e.getBoundingClientRect().height)).toBe(0);
    await saveScreenshot(desktop, 'checkout-app-qr-desktop-en');
    const phone = await openPage(order.data.paymentLink, 390, 844);
    expect(await phone.$eval('#deeplink', (e) => e.getBoundingClientRect().height)).toBeGreaterThan(0);
    expect(await phone.$eval('.qr', (e) => e.getBoundingClientRect().height)).toBe(0);
    await saveScreenshot(phone, 'checkout-app-deeplink-phone-en');
    // The universal link (what the QR holds) opens the provider's page that plays the bank app.
    const bank = await browser.newPage();
    await bank.setViewport({ width: 390, height: 700 });
    await bank.goto(await desktop.$eval('#universal', (e) => e.getAttribute('href') ?? ''));
    await saveScreenshot(bank, 'sandbox-bank-app');
    await Promise.all([bank.waitForNavigation(), bank.click('#approve')]);
    expect(await bank.$eval('#decision', (e) => e.textContent)).toContain('Approved');
    await desktop.waitForFunction(`location.href.startsWith(${JSON.stringify(site())})`, { timeout: 20000 });
    expect(new URL(desktop.url()).searchParams.get('status')).toBe('completed');
    await untilStatus(() => orderOf(order.id, s), 'completed', 'app payment completed');
    for (const p of [desktop, phone, bank]) await p.close();
  });

  it('when the payer declines in the bank app, then the page sends them to the failure URL', async () => {
    const s = await appShop();
    const order = await hostedOrder({}, {}, s);
    const page = await payInApp(order.data.paymentLink, 390, 844);
    const bank = await browser.newPage();
    await bank.goto(await page.$eval('#universal', (e) => e.getAttribute('href') ?? ''));
    await Promise.all([bank.waitForNavigation(), bank.click('#decline')]);
    await page.waitForFunction(`location.href.startsWith(${JSON.stringify(site())})`, { timeout: 20000 });
    expect(new URL(page.url()).pathname).toBe('/shop/not-paid');
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    await page.close();
    await bank.close();
  });

  it('when a shop_hosted order is made for an app method, then the answer and the signed callback carry the instructions, and the app pays it', async () => {
    const s = await appShop();
    const res = await http('POST', `${gw()}/order`, {
      token: s.apiKey,
      body: {
        ...anOrderRequest({ amount: '125000.00', currency: 'UZS' }),
        paymentPageDesign: { format: 'shop_hosted' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('registered');
    expect(res.body.data.paymentLink).toBeUndefined();
    const i = res.body.data.instructions;
    expect(i).toMatchObject({ method: 'sandboxpay', amount: '125000.00', currency: 'UZS' });
    expect(i.deeplinks.app).toMatch(/^sandboxpay:\/\/pay\?/);
    expect(i.qr).toBe(i.deeplinks.universal);
    // No expiry that nothing enforces (decision 192): the app payment lasts until the processing timeout.
    expect(i.expiresAt).toBeUndefined();
    const created = await eventually(
      async () => merchant.received.find((c) => c.json?.objectId === res.body.id && c.json?.sequence === 1),
      20000,
      'the creation callback',
    );
    expect(created.json.instructions).toEqual(i);
    expect(created.headers['x-signature']).toBeDefined();
    const bank = await browser.newPage();
    await bank.goto(i.deeplinks.universal);
    await Promise.all([bank.waitForNavigation(), bank.click('#approve')]);
    await untilStatus(() => orderOf(res.body.id, s), 'completed', 'shop_hosted order paid in the app');
    await bank.close();
  });

  it('when shop_hosted is asked for a shop without an instruction method, then the format is ignored and the standard flow runs', async () => {
    const res = await http('POST', `${gw()}/order`, {
      token: shop.apiKey,
      body: {
        ...anOrderRequest({ amount: '125000.00', currency: 'UZS' }),
        paymentPageDesign: { format: 'shop_hosted' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.instructions).toBeUndefined();
    await untilStatus(() => orderOf(res.body.id), 'completed', 'standard flow');
  });

  it('when the link expires unpaid, then it answers a 410 page, the order fails with 1-07-08 and the merchant is called back', async () => {
    const order = await hostedOrder({}, { timeLimit: 60 });
    await db.query(`UPDATE orders.orders SET link_expires_at = now() - interval '1 second' WHERE id = $1`, [order.id]);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const res = await page.goto(order.data.paymentLink);
    expect(res!.status()).toBe(410);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('This payment link has expired');
    expect((await orderOf(order.id)).data.paymentLink).toBeUndefined();
    await stack.orders![0].app.get(ProcessingTimeoutSweeper).sweep(new Date());
    const failed = await untilStatus(() => orderOf(order.id), 'failed', 'expired order failed');
    expect(failed.statusCode).toBe('1-07-08');
    expect(failed.data.paymentLinkStatus).toBe('closed');
    const again = await page.goto(`${order.data.paymentLink}?lang=ru`);
    expect(again!.status()).toBe(410);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Срок действия ссылки истёк');
    await saveScreenshot(page, 'checkout-expired-410-ru');
    await eventually(
      async () =>
        merchant.received.find((c) => c.json?.objectId === order.id && c.json?.status === 'failed') ? true : undefined,
      20000,
      'the failed callback',
    );
    const callback = merchant.received.find((c) => c.json?.objectId === order.id && c.json?.status === 'failed')!;
    expect(callback.json.statusCode).toBe('1-07-08');
    expect(callback.headers['x-signature']).toBeDefined();
    await page.close();
  });

  it('when pages are served, then they carry a nonce CSP, no framing, no-store, and every language renders', async () => {
    const order = await hostedOrder();
    for (const lang of ['uz', 'ru', 'en']) {
      const res = await fetch(`${order.data.paymentLink}?lang=${lang}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).toContain(`<html lang="${lang}">`);
      const bytes = Buffer.byteLength(html);
      expect(bytes).toBeLessThan(60 * 1024);
      if (lang === 'en') process.stdout.write(`checkout order page weight: ${bytes} bytes (HTML+CSS+JS, one file)\n`);
    }
    const missing = await fetch(`${stack.checkout!.url}/pay/o${'A'.repeat(64)}`);
    expect(missing.status).toBe(404);
    const junk = await fetch(`${stack.checkout!.url}/pay/not-a-token`);
    expect(junk.status).toBe(404);
    // What no page answers leaves as problem+json, as in every app (its health's 503 included).
    const nowhere = await fetch(`${stack.checkout!.url}/no-such-page`);
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get('content-type')).toContain('application/problem+json');
  });

  it('when junk is posted to a page, then it answers 4xx or the page, never 5xx, and nothing is paid', async () => {
    const order = await hostedOrder();
    const junk: Array<[string, string]> = [
      ['application/json', '[]'],
      ['application/json', '"card"'],
      ['application/json', 'null'],
      ['application/json', JSON.stringify({ method: { $ne: 1 }, cardNumber: ['4111111111111111'], expiry: 12 })],
      ['application/json', JSON.stringify({ method: 'card', cardNumber: '4'.repeat(5000), expiry: '12/30' })],
      ['application/x-www-form-urlencoded', 'method=nope&cardNumber=4111111111111111&expiry=12%2F30'],
      ['application/x-www-form-urlencoded', 'cardNumber=%00%00&expiry=%ff'],
      ['text/plain', 'hello'],
    ];
    for (const [type, body] of junk) {
      const res = await fetch(order.data.paymentLink, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status).toBeLessThan(500);
      expect(res.status).not.toBe(303);
    }
    for (const path of ['/pay/', `/pay/o${'A'.repeat(200)}`, '/pay/%E0%A4%A', `/pay/p${'A'.repeat(64)}`]) {
      const res = await fetch(`${stack.checkout!.url}${path}`);
      expect(res.status).toBeLessThan(500);
    }
    expect(await dispatches(order.id)).toBe(0);
    expect((await orderOf(order.id)).data.paymentLinkStatus).toBe('live');
  });

  // Last: it spends most of this client's request budget.
  it('when one link is loaded faster than a payer could, then it is slowed down with 429 and Retry-After', async () => {
    const order = await hostedOrder();
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(order.data.paymentLink)));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0].headers.get('content-type')).toContain('text/html');
    expect(await limited[0].text()).toContain('Too many attempts');
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThan(0);
  });
});
