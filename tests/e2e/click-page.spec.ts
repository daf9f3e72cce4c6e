import type { Browser } from 'puppeteer-core';
import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCheckoutConfig, RunningCheckout, startCheckout } from '@payments/apps/checkout';
import type { RunningSandbox } from '@payments/apps/provider-sandbox';
import { http, launchBrowser, saveScreenshot, uniqueName } from '@payments/testing';
import { clickEnv, startClick } from '../support/click';
import { aHostedOrder, aShop, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * "Pay with Click" on the hosted page (issue 30) in a real headless Chromium: the page of a shop
 * with a Click account shows the button with Click's deeplink; the sandbox plays my.click.uz
 * (CLICK_PAY_URL), the payer confirms, Click's Prepare and Complete reach callbacks-ingest and the
 * order is paid. Screenshots in .run/screenshots.
 */
describe('hosted page: a payer pays with Click', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let plain: TestShop;
  let ingest: RunningCallbacksIngest;
  let click: RunningSandbox;
  let checkout: RunningCheckout;

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox', 'methods'],
      checkout: true,
    });
    shop = await aShop(stack.gateway!.url, 'Chorsu Click');
    plain = await aShop(stack.gateway!.url, 'No Click Shop');
    const account = {
      shopId: shop.shopId,
      serviceId: '70002',
      merchantId: '30002',
      secretKey: 'click-page-secret-key',
    };
    ({ ingest, click } = await startClick(stack, account));
    checkout = await startCheckout(
      loadCheckoutConfig(
        stack.env(
          {
            CLICK_SHOPS: clickEnv(account).CLICK_SHOPS,
            CLICK_PAY_URL: click.url,
            CHECKOUT_INSTANCE_ID: uniqueName('co'),
          },
          { tokenizes: true },
        ),
      ),
      0,
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await checkout?.close();
    await click?.close();
    await ingest?.close();
    await stack?.stop();
  });

  /** A hosted order's link, on the checkout that knows the Click shops. */
  const hostedOrder = (s: TestShop, amount = '125000.00', currency = 'UZS') =>
    aHostedOrder(stack.gateway!.url, checkout.url, s, amount, currency);

  it('when the shop takes Click, then the page has "Pay with Click" with its deeplink, and paying in Click completes the order', async () => {
    const { id, link } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
    const button = await page.$eval('#pay-click', (a) => ({ text: a.textContent, href: a.getAttribute('href') }));
    expect(button.text).toBe('Pay with Click');
    const href = new URL(button.href!);
    expect(`${href.origin}${href.pathname}`).toBe(`${click.url}/services/pay`);
    expect(Object.fromEntries(href.searchParams)).toEqual({
      service_id: '70002',
      merchant_id: '30002',
      amount: '125000.00',
      transaction_param: id,
    });
    await saveScreenshot(page, 'click-hosted-page');

    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#pay-click')]);
    await saveScreenshot(page, 'click-app-confirm');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#confirm')]);
    expect(await page.$eval('#outcome', (e) => e.textContent)).toBe('Paid.');
    await saveScreenshot(page, 'click-app-paid');
    const paid = await untilStatus(
      async () => (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body,
      'completed',
      'order paid with Click',
    );
    expect(paid.data.payments).toEqual([expect.objectContaining({ provider: 'click', status: 'success' })]);
    await page.close();
  });

  it('when Click refuses the payment, then its page shows the error, the order and the amount', async () => {
    const { id } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844 });
    const pay = new URL('/services/pay', click.url);
    const query = { service_id: '70002', merchant_id: '30002', amount: '125001.00', transaction_param: id };
    for (const [k, v] of Object.entries(query)) pay.searchParams.set(k, v);
    await page.goto(pay.toString(), { waitUntil: 'load' });
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#confirm')]);
    expect(await page.$eval('#outcome', (e) => e.textContent)).toBe('Not paid: Incorrect parameter amount.');
    expect(await page.$eval('main', (e) => e.textContent)).toContain(`Order ${id.slice(0, 8)}…, 125001.00 UZS`);
    await saveScreenshot(page, 'click-app-refused-phone');
    expect((await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body.status).toBe(
      'registered',
    );
    await page.close();
  });

  it.each([
    ['ru', 'Оплатить через Click'],
    ['uz', 'Click orqali toʻlash'],
  ])('when the page is in %s, then the button says %s', async (lang, text) => {
    const { link } = await hostedOrder(shop);
    const page = await browser.newPage();
    await page.goto(`${link}?lang=${lang}`, { waitUntil: 'load' });
    expect(await page.$eval('#pay-click', (a) => a.textContent)).toBe(text);
    await page.close();
  });

  it('when the shop has no Click account, or the order is not in sums, then there is no Click button', async () => {
    for (const { link } of [await hostedOrder(plain), await hostedOrder(shop, '10.00', 'USD')]) {
      const page = await browser.newPage();
      await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
      expect(await page.$('#cardNumber')).not.toBeNull();
      expect(await page.$('#pay-click')).toBeNull();
      await page.close();
    }
  });
});
