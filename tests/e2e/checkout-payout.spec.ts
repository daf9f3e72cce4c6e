import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { Browser, Page } from 'puppeteer-core';
import { PayoutLinkExpirySweeper } from '@payments/apps/payouts';
import { eventually, http, launchBrowser, saveScreenshot } from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { withPayoutMethods } from '../support/transfers';
import { submitAtOnce } from '../support/browser-forms';
import { untilStatus } from '../support/wait';

/**
 * Payout via payment page (issue 20) through the running services: with the shop's operator
 * setting on, a payout that carries no payee needs only merchantPayoutId and cost, gets its
 * method chosen (paymentSettingsAlias, else by amount and currency, else 1-03-02), stays
 * registered and undispatched, and answers data.payoutLink and data.expiresAt.
 */
describe('payout via payment page: a payout without a payee answers a link for its recipient', () => {
  let stack: TestStack;
  let db: Client;
  let shop: TestShop;
  let plain: TestShop;
  let browser: Browser;
  let merchant: CallbackReceiver;

  // The expiry test sweeps by itself: the payouts service's own sweep (every 5 s) could cancel
  // its payout between the 410 and the check that the link reads `expired`. The sweeper reads
  // this variable from the process's environment, not from the stack's.
  const sweepInterval = process.env.PAYOUT_LINK_SWEEP_INTERVAL_MS;

  beforeAll(async () => {
    process.env.PAYOUT_LINK_SWEEP_INTERVAL_MS = '0';
    stack = await TestStack.start({ checkout: true, extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '0' } });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    shop = await aShop(gw(), 'Chorsu Payouts');
    plain = await aShop(gw(), 'Plain Payouts');
    await withPayoutMethods(gw(), shop.shopId);
    await withPayoutMethods(gw(), plain.shopId);
    const humo = await http('POST', `${opsUrlOf(gw())}/ops/v1/shops/${shop.shopId}/payout-methods`, {
      token: TEST_OPS_TOKEN,
      body: {
        code: 'humo-payout',
        instrumentType: 'card',
        cardBrands: ['humo'],
        currencies: [{ currency: 'UZS', maxAmount: '10000000' }],
        provider: 'sandbox',
      },
    });
    expect(humo.status).toBe(201);
    merchant = await CallbackReceiver.start('/shop');
    browser = await launchBrowser();
    const res = await http('PATCH', `${opsUrlOf(gw())}/ops/v1/shops/${shop.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: {
        payoutViaPaymentPage: true,
        callbackUrl: merchant.url,
        redirectDomains: ['merchant.example.com', 'localhost'],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.payoutViaPaymentPage).toBe(true);
  });

  afterAll(async () => {
    await browser?.close();
    await merchant?.stop();
    await db?.end();
    await stack?.stop();
    if (sweepInterval === undefined) delete process.env.PAYOUT_LINK_SWEEP_INTERVAL_MS;
    else process.env.PAYOUT_LINK_SWEEP_INTERVAL_MS = sweepInterval;
  });

  const gw = () => stack.gateway!.url;
  let counter = 0;
  const minimal = (amount: string, currency: string, extra: Record<string, unknown> = {}) => ({
    payout: { merchantPayoutId: `hp-${Date.now()}-${++counter}`, cost: { amount, currency } },
    ...extra,
  });
  const post = (body: unknown, s: TestShop = shop) => http('POST', `${gw()}/payouts`, { token: s.apiKey, body });
  const dispatches = async (id: string) =>
    (await db.query('SELECT count(*)::int AS n FROM payouts.provider_dispatches WHERE payout_id = $1', [id])).rows[0].n;

  it('when the operator reads the shop settings, then payoutViaPaymentPage is there, off for a new shop', async () => {
    const on = await http('GET', `${opsUrlOf(gw())}/ops/v1/shops/${shop.shopId}/settings`, { token: TEST_OPS_TOKEN });
    expect(on.body.payoutViaPaymentPage).toBe(true);
    const off = await http('GET', `${opsUrlOf(gw())}/ops/v1/shops/${plain.shopId}/settings`, { token: TEST_OPS_TOKEN });
    expect(off.body.payoutViaPaymentPage).toBe(false);
  });

  it('when the setting is off and a payout lacks its payee, then 400 names payee and payout.method and nothing is made', async () => {
    const body = minimal('100.00', 'USD');
    const res = await post(body, plain);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['payee', 'payout.method']);
    const rows = await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [
      body.payout.merchantPayoutId,
    ]);
    expect(rows.rowCount).toBe(0);
  });

  it('when the setting is on and only merchantPayoutId and cost are given, then the payout waits registered with a live link stored only hashed', async () => {
    const res = await post(
      minimal('120.50', 'USD', {
        timeLimit: 600,
        paymentPageDesign: { locale: 'uz' },
        redirectUrls: { success: 'https://merchant.example.com/paid', failure: 'https://pay.merchant.example.com/no' },
      }),
    );
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p).toMatchObject({
      status: 'registered',
      statusCode: '1-01-03',
      payout: { method: 'uzcard-payout', cost: { amount: '120.50', currency: 'USD' } },
      instrumentType: 'card',
      payee: {},
    });
    expect(p.data.payoutLink).toMatch(new RegExp(`^${stack.checkout!.url}/payout/p[A-Za-z0-9_-]{64}$`));
    const left = Date.parse(p.data.expiresAt) - Date.now();
    expect(left).toBeGreaterThan(500_000);
    expect(left).toBeLessThanOrEqual(600_000);
    const token = p.data.payoutLink.split('/').pop();
    const row = (await db.query('SELECT * FROM payouts.payouts WHERE id = $1', [p.id])).rows[0];
    expect(row.link_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(row.page_locale).toBe('uz');
    expect(row.redirect_urls).toEqual({
      success: 'https://merchant.example.com/paid',
      failure: 'https://pay.merchant.example.com/no',
    });
    expect(JSON.stringify(row)).not.toContain(token);
    const again = await http('GET', `${gw()}/payouts/${p.id}`, { token: shop.apiKey });
    expect(again.body.data).toEqual(p.data);
    const found = await http('GET', `${gw()}/payouts?merchantPayoutId=${p.payout.merchantPayoutId}`, {
      token: shop.apiKey,
    });
    expect(found.body.data).toEqual(p.data);
    expect(await dispatches(p.id)).toBe(0);
  });

  it('when no method is named, then the first of the shop payout methods that fits amount and currency is chosen', async () => {
    // uzcard-payout takes USD up to 5000.00: 6000 USD goes to the wallet method.
    const big = await post(minimal('6000.00', 'USD'));
    expect(big.status).toBe(201);
    expect(big.body.payout.method).toBe('wallet-payout');
    const usdt = await post({
      payout: {
        merchantPayoutId: `hp-usdt-${Date.now()}`,
        cost: { amount: '15', currency: 'USDT', tokenStandard: 'TRC20' },
      },
    });
    expect(usdt.status).toBe(201);
    expect(usdt.body.payout.method).toBe('usdt-payout');
  });

  it('when paymentSettingsAlias names a method, then that method is used', async () => {
    const res = await post(minimal('50.00', 'USD', { paymentSettingsAlias: 'wallet-payout' }));
    expect(res.status).toBe(201);
    expect(res.body.payout.method).toBe('wallet-payout');
    expect(res.body.data.payoutLink).toBeDefined();
  });

  it('when no payout method of the shop fits, then 422 with 1-03-02 names payout.cost and nothing is made', async () => {
    const body = minimal('10.00', 'EUR');
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.body.statusCode).toBe('1-03-02');
    expect(res.body.errors[0].path).toBe('payout.cost');
    const rows = await db.query('SELECT 1 FROM payouts.payouts WHERE merchant_payout_id = $1', [
      body.payout.merchantPayoutId,
    ]);
    expect(rows.rowCount).toBe(0);
  });

  it('when a redirect URL is off the allow-list or timeLimit is out of range, then 400 names the field', async () => {
    const evil = await post(minimal('10.00', 'USD', { redirectUrls: { success: 'https://evil.example/x' } }));
    expect(evil.status).toBe(400);
    expect(evil.body.errors[0].path).toBe('redirectUrls.success');
    const short = await post(minimal('10.00', 'USD', { timeLimit: 5 }));
    expect(short.status).toBe(400);
    expect(short.body.errors[0].path).toBe('timeLimit');
  });

  it('when a payout with its payee is requested from a shop with the setting on, then it is dispatched as before, without a link', async () => {
    const res = await post({
      ...minimal('100.99', 'USD'),
      payout: {
        merchantPayoutId: `hp-h2h-${Date.now()}`,
        method: 'uzcard-payout',
        cost: { amount: '100.99', currency: 'USD' },
      },
      payee: { cardNumber: '8600123456789012', cardHolder: 'JANE DOE' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toBeUndefined();
    await eventually(async () => ((await dispatches(res.body.id)) === 1 ? true : undefined), 15000, 'dispatched');
  });

  /** The merchant's receiver doubles as its shop site: the page sends the recipient back there. */
  const site = () => merchant.url.replace('127.0.0.1', 'localhost');
  const payoutOf = async (id: string) => (await http('GET', `${gw()}/payouts/${id}`, { token: shop.apiKey })).body;

  async function hostedPayout(extra: Record<string, unknown> = {}) {
    const res = await post(
      minimal('250000.00', 'UZS', {
        paymentSettingsAlias: 'humo-payout',
        redirectUrls: { success: `${site()}/payout-done`, failure: `${site()}/payout-failed` },
        ...extra,
      }),
    );
    expect(res.status).toBe(201);
    return res.body;
  }

  async function openPage(link: string, width = 1280, height = 900, lang = 'en-US'): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width, height });
    await page.setExtraHTTPHeaders({ 'accept-language': lang });
    await page.goto(link, { waitUntil: 'load' });
    return page;
  }

  it('when the recipient enters a humo card on the payout page, then the payout is sent once, completes, and the browser lands on the success URL', async () => {
    const p = await hostedPayout();
    const page = await openPage(p.data.payoutLink);
    const res = await fetch(p.data.payoutLink);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'.*frame-ancestors 'none'/);
    expect(await page.$eval('h1', (h) => h.textContent)).toContain('250,000.00 UZS');
    expect(await page.$$eval('a.method', (as) => as.map((a) => a.getAttribute('data-method')))).toEqual(
      expect.arrayContaining(['uzcard-payout', 'humo-payout']),
    );
    expect(await page.$eval('a.method[aria-current]', (a) => a.getAttribute('data-method'))).toBe('humo-payout');
    await saveScreenshot(page, 'checkout-payout-desktop-en');
    await page.type('#f-cardNumber', '9860 1234 5678 9015');
    await page.type('#f-cardHolder', 'ALISHER NAVOIY');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    await page.waitForFunction(`location.href.startsWith(${JSON.stringify(site())})`, { timeout: 20000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/shop/payout-done');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ payoutId: p.id, status: 'completed' });
    const done = await untilStatus(() => payoutOf(p.id), 'completed', 'hosted payout completed');
    expect(done.data).toEqual({ payoutLinkStatus: 'used' });
    expect(done.payout.method).toBe('humo-payout');
    expect(done.payee).toEqual({ cardNumber: '986012******9015', cardHolder: 'ALISHER NAVOIY' });
    expect(await dispatches(p.id)).toBe(1);
    const row = (await db.query('SELECT * FROM payouts.payouts WHERE id = $1', [p.id])).rows[0];
    expect(row.payee_cards.cardNumber.token).toMatch(/^card_/);
    expect(JSON.stringify(row)).not.toContain('9860123456789015');
    // The link is spent: a second submission changes nothing.
    const again = await fetch(p.data.payoutLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=humo-payout&cardNumber=9860123456789015&cardHolder=X',
      redirect: 'manual',
    });
    expect(again.status).toBe(409);
    expect(await dispatches(p.id)).toBe(1);
    await page.close();
  });

  it('when two tabs submit the same payout link at once, then one payout is sent and the other tab is told', async () => {
    const p = await hostedPayout();
    const [a, b] = [await openPage(p.data.payoutLink), await openPage(p.data.payoutLink)];
    await a.type('#f-cardNumber', '9860 1234 5678 9015');
    await a.type('#f-cardHolder', 'ALISHER NAVOIY');
    await b.type('#f-cardNumber', '9860 1111 2222 3337');
    await b.type('#f-cardHolder', 'BOBUR MIRZO');
    const posted = await submitAtOnce([a, b], 'payout');
    const done = await untilStatus(() => payoutOf(p.id), 'completed', 'one payout completed');
    expect(await dispatches(p.id)).toBe(1);
    // One tab followed its submission (303); the other is told with a 409 and sent nothing.
    expect(posted.sort()).toEqual([303, 409]);
    const texts = await Promise.all([a, b].map((page) => page.evaluate('document.body.innerText') as Promise<string>));
    const loser = texts.findIndex((t) => t.includes('Details were already given on this link'));
    expect(loser).toBeGreaterThanOrEqual(0);
    // The payee is the winning tab's, whole: never a mix of the two forms.
    const winner =
      loser === 1
        ? { card: '986012******9015', holder: 'ALISHER NAVOIY' }
        : { card: '986011******3337', holder: 'BOBUR MIRZO' };
    expect(done.payee).toEqual({ cardNumber: winner.card, cardHolder: winner.holder });
    await saveScreenshot([a, b][loser], 'checkout-payout-second-tab-409');
    await a.close();
    await b.close();
  });
  it('when the recipient types a card outside the method BIN ranges, then the error is next to the field and nothing is sent', async () => {
    const p = await hostedPayout();
    const page = await openPage(p.data.payoutLink, 390, 844, 'ru-RU');
    await page.type('#f-cardNumber', '8600 1234 5678 9012');
    await page.type('#f-cardHolder', 'JANE DOE');
    await page.click('#submit');
    expect(await page.$eval('#f-cardNumber-err', (e) => e.textContent)).toContain('Эта карта здесь не принимается');
    expect(await page.$eval('#f-cardNumber', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('f-cardNumber');
    await saveScreenshot(page, 'checkout-payout-wrong-bin-phone-ru');
    // Without JavaScript the server holds the same rules: a bad Luhn, then a method the shop does not offer.
    const luhn = await fetch(p.data.payoutLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: 'method=humo-payout&cardNumber=9860123456789016&cardHolder=JANE+DOE',
      redirect: 'manual',
    });
    expect(luhn.status).toBe(400);
    const html = await luhn.text();
    expect(html).toContain('The card number is not valid');
    expect(html).not.toContain('9860123456789016');
    const other = await fetch(p.data.payoutLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: 'method=visa-payout&cardNumber=4111111111111111&cardHolder=JANE+DOE',
      redirect: 'manual',
    });
    expect(other.status).toBe(422);
    expect(await other.text()).toContain('1-03-02');
    expect(await dispatches(p.id)).toBe(0);
    expect((await payoutOf(p.id)).data.payoutLink).toBe(p.data.payoutLink);
    await page.close();
  });

  it('when the recipient types a card number into the name field, then the page says why the field is empty and never shows the number', async () => {
    const p = await hostedPayout();
    const page = await openPage(p.data.payoutLink, 390, 844);
    await page.type('#f-cardNumber', '9860 1234 5678 9015');
    await page.type('#f-cardHolder', '9860 1234 5678 9015');
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    expect(answer!.status()).toBe(400);
    expect(await page.$eval('#f-cardHolder-err', (e) => e.textContent)).toBe(
      'A card number does not belong in this field. It was cleared: enter the value again.',
    );
    expect(await page.$eval('#f-cardHolder', (e) => e.getAttribute('value'))).toBe('');
    expect(await page.$eval('#f-cardHolder', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.$eval('#f-cardNumber', (e) => e.getAttribute('value'))).toBe('');
    const html = await page.content();
    for (const shown of ['9860 1234 5678 9015', '9860123456789015', '5678 9015', '56789015'])
      expect(html).not.toContain(shown);
    await saveScreenshot(page, 'checkout-payout-card-in-holder-phone-en');
    // Without JavaScript the same: plain, dashed, and a card of another scheme, in ru.
    for (const holder of ['4111111111111111', '8600-0691-9540-6311', 'JANE 5555 5555 5555 4444']) {
      const res = await fetch(p.data.payoutLink, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'ru' },
        body: new URLSearchParams({
          method: 'humo-payout',
          cardNumber: '9860123456789015',
          cardHolder: holder,
        }).toString(),
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain('В этом поле не должно быть номера карты');
      expect(text).not.toContain(holder);
      expect(text).not.toContain(holder.replace(/\D/g, ''));
      expect(text).not.toContain('9860123456789015');
    }
    expect(await dispatches(p.id)).toBe(0);
    expect((await payoutOf(p.id)).data.payoutLink).toBe(p.data.payoutLink);
    await page.close();
  });

  it('when the payout page is opened in uz, ru and en, then every string is in that language and the page weighs under 60 KB', async () => {
    const p = await hostedPayout({ paymentPageDesign: { locale: 'uz' } });
    const expected = { uz: 'Pulni olish', ru: 'Получить деньги', en: 'Receive the money' } as const;
    for (const lang of ['uz', 'ru', 'en'] as const) {
      const page = await openPage(`${p.data.payoutLink}?lang=${lang}`, 390, 844);
      expect(await page.$eval('html', (h) => h.getAttribute('lang'))).toBe(lang);
      expect(await page.$eval('#submit', (b) => b.textContent)).toContain(expected[lang]);
      await saveScreenshot(page, `checkout-payout-phone-${lang}`);
      await page.close();
      const res = await fetch(`${p.data.payoutLink}?lang=${lang}`);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const bytes = Buffer.byteLength(await res.text());
      expect(bytes).toBeLessThan(60 * 1024);
      if (lang === 'en') process.stdout.write(`checkout payout page weight: ${bytes} bytes (HTML+CSS+JS, one file)\n`);
    }
    // Without ?lang the merchant's locale wins over the browser's.
    const page = await openPage(p.data.payoutLink, 1280, 900, 'ru-RU');
    expect(await page.$eval('html', (h) => h.getAttribute('lang'))).toBe('uz');
    await page.close();
  });

  it('when a payout link expires never filled in, then it answers a 410 page, the payout is cancelled with 1-07-09 and the merchant is called back', async () => {
    const p = await hostedPayout({ timeLimit: 60, paymentPageDesign: { locale: 'ru' } });
    await db.query(`UPDATE payouts.payouts SET link_expires_at = now() - interval '1 second' WHERE id = $1`, [p.id]);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844 });
    const res = await page.goto(p.data.payoutLink);
    expect(res!.status()).toBe(410);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Срок действия ссылки истёк');
    expect((await payoutOf(p.id)).data).toEqual({ payoutLinkStatus: 'expired' });
    await stack.payouts!.app.get(PayoutLinkExpirySweeper).sweep(new Date());
    const cancelled = await untilStatus(() => payoutOf(p.id), 'cancelled', 'expired payout cancelled');
    expect(cancelled.statusCode).toBe('1-07-09');
    expect(cancelled.statusDescription).toContain('Payout link expired');
    const again = await page.goto(p.data.payoutLink);
    expect(again!.status()).toBe(410);
    await saveScreenshot(page, 'checkout-payout-expired-410-ru');
    // Filling it in now changes nothing.
    const late = await fetch(p.data.payoutLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=humo-payout&cardNumber=9860123456789015&cardHolder=X',
      redirect: 'manual',
    });
    expect(late.status).toBe(410);
    expect(await dispatches(p.id)).toBe(0);
    const callback = await eventually(
      async () => merchant.received.find((c) => c.json?.objectId === p.id && c.json?.status === 'cancelled'),
      20000,
      'the cancelled callback',
    );
    expect(callback.json.statusCode).toBe('1-07-09');
    expect(callback.headers['x-signature']).toBeDefined();
    await page.close();
  });
});
