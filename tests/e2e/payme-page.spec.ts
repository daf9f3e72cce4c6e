import type { Browser } from 'puppeteer-core';
import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCallbacksIngestConfig, startCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCheckoutConfig, RunningCheckout, startCheckout } from '@payments/apps/checkout';
import { paymeAuthorization } from '@payments/providers/payme';
import { eventually, http, launchBrowser, saveScreenshot, uniqueName } from '@payments/testing';
import { aHostedOrder, aShop, TestShop } from '../support/merchant';
import { deleteProviderAccount, setProviderAccount, untilOrdersHasIds } from '../support/provider-accounts';
import { TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

const MERCHANT = '6a1c2e3f4b5d6e7f8a9b0c1d';
const KEY = 'payme-page-cashbox-key';
const PAYME = 'https://checkout.paycom.uz';

/**
 * "Pay with Payme" on the hosted page (issue 30) in a real headless Chromium: the page of a shop
 * with a Payme cashbox (set by an operator, decision 341; on the page through orders' view,
 * decision 342) shows the button with Payme's checkout link; the test then plays Payme with
 * exactly what that link tells it (merchant, order, amount in tiyin) against callbacks-ingest, and
 * the page follows the order to paid. Screenshots in .run/screenshots.
 */
describe('hosted page: a payer pays with Payme', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let plain: TestShop;
  let ingest: RunningCallbacksIngest;
  let checkout: RunningCheckout;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'methods'], checkout: true });
    shop = await aShop(stack.gateway!.url, 'Chorsu Payme');
    plain = await aShop(stack.gateway!.url, 'No Payme Shop');
    ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env()), 0);
    await setProviderAccount(stack, shop.shopId, 'payme', { merchantId: MERCHANT, key: KEY });
    // The shop takes Click too: both buttons, Click first (no Click service is needed to show it).
    await setProviderAccount(stack, shop.shopId, 'click', {
      serviceId: '70003',
      merchantId: '30003',
      secretKey: 'payme-page-click-key',
    });
    await untilOrdersHasIds(stack, shop.shopId, 'click', { serviceId: '70003', merchantId: '30003' });
    await untilOrdersHasIds(stack, shop.shopId, 'payme', { merchantId: MERCHANT });
    checkout = await startCheckout(
      loadCheckoutConfig(stack.env({ CHECKOUT_INSTANCE_ID: uniqueName('co') }, { tokenizes: true })),
      0,
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await checkout?.close();
    await ingest?.close();
    await stack?.stop();
  });

  /** A hosted order's link, on the checkout. */
  const hostedOrder = (s: TestShop, amount = '125000.50', currency = 'UZS') =>
    aHostedOrder(stack.gateway!.url, checkout.url, s, amount, currency);

  /** Plays Payme: what its app does once the payer confirms, from the link's parameters. */
  async function payAsPayme(params: Record<string, string>): Promise<void> {
    const tx = `pp-${params['ac.order_id']}`;
    const calls: [string, unknown][] = [
      ['CheckPerformTransaction', { amount: Number(params.a), account: { order_id: params['ac.order_id'] } }],
      [
        'CreateTransaction',
        { id: tx, time: Date.now(), amount: Number(params.a), account: { order_id: params['ac.order_id'] } },
      ],
      ['PerformTransaction', { id: tx }],
    ];
    for (const [method, p] of calls) {
      const res = await fetch(`${ingest.url}/callbacks/payme/${params.m}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: paymeAuthorization(KEY) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: p }),
      });
      expect(await res.json()).toMatchObject({ result: expect.any(Object) });
    }
  }

  it('when the shop takes Payme, then the page has "Pay with Payme" with its checkout link, and paying in Payme completes the order', async () => {
    const { id, link } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
    const ids = await page.$$eval('a.provider', (as) => as.map((a) => a.id));
    expect(ids).toEqual(['pay-click', 'pay-payme']);
    const button = await page.$eval('#pay-payme', (a) => ({ text: a.textContent, href: a.getAttribute('href') }));
    expect(button.text).toBe('Pay with Payme');
    expect(button.href!.startsWith(`${PAYME}/`)).toBe(true);
    const decoded = Buffer.from(button.href!.slice(PAYME.length + 1), 'base64').toString('utf8');
    expect(decoded).toBe(`m=${MERCHANT};ac.order_id=${id};a=12500050`);
    await saveScreenshot(page, 'payme-hosted-page');

    await payAsPayme(Object.fromEntries(decoded.split(';').map((kv) => kv.split('=', 2) as [string, string])));
    const paid = await untilStatus(
      async () => (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body,
      'completed',
      'order paid with Payme',
    );
    expect(paid.data.payments).toEqual([expect.objectContaining({ provider: 'payme', status: 'success' })]);
    // The page serves a live view for up to CHECKOUT_VIEW_MAX_AGE_MS (decision 223): reload until it follows.
    await eventually(
      async () => {
        await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
        return (await page.$('#pay-payme')) === null ? true : undefined;
      },
      15_000,
      'the page no longer offers Payme',
    );
    await saveScreenshot(page, 'payme-hosted-page-paid');
    await page.close();
  });

  it.each([
    ['ru', 'Оплатить через Payme'],
    ['uz', 'Payme orqali toʻlash'],
  ])('when the page is in %s, then the button says %s', async (lang, text) => {
    const { link } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${link}?lang=${lang}`, { waitUntil: 'load' });
    expect(await page.$eval('#pay-payme', (a) => a.textContent)).toBe(text);
    await saveScreenshot(page, `payme-hosted-page-${lang}`);
    await page.close();
  });

  it('when the shop has no Payme cashbox, or the order is not in sums, then there is no Payme button', async () => {
    for (const { link } of [await hostedOrder(plain), await hostedOrder(shop, '10.00', 'USD')]) {
      const page = await browser.newPage();
      await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
      expect(await page.$('#cardNumber')).not.toBeNull();
      expect(await page.$('#pay-payme')).toBeNull();
      await page.close();
    }
  });

  it("when an operator deletes the shop's Payme cashbox, then its page no longer shows the button; Click's stays", async () => {
    await deleteProviderAccount(stack, shop.shopId, 'payme');
    await untilOrdersHasIds(stack, shop.shopId, 'payme', null);
    const { link } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
    expect(await page.$$eval('a.provider', (as) => as.map((a) => a.id))).toEqual(['pay-click']);
    await page.close();
  });
});
