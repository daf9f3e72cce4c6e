import type { Browser } from 'puppeteer-core';
import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCheckoutConfig, RunningCheckout, startCheckout } from '@payments/apps/checkout';
import type { RunningSandbox } from '@payments/apps/provider-sandbox';
import { http, launchBrowser, saveScreenshot, uniqueName } from '@payments/testing';
import { startClick } from '../support/click';
import { aHostedOrder, aShop, TestShop } from '../support/merchant';
import { deleteProviderAccount, setProviderAccount, untilOrdersHasIds } from '../support/provider-accounts';
import { TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * "Pay with Click" on the hosted page (issue 30) in a real headless Chromium: the page of a shop
 * with a Click account shows the button with Click's deeplink; the sandbox plays my.click.uz
 * (CLICK_PAY_URL), the payer confirms, Click's Prepare and Complete reach callbacks-ingest and the
 * order is paid. The account is the operators' (decision 341) and reaches the page through orders'
 * view (decision 342): checkout has no list of Click shops. Screenshots in .run/screenshots.
 */
describe('hosted page: a payer pays with Click', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let plain: TestShop;
  let later: TestShop;
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
    later = await aShop(stack.gateway!.url, 'Click Later Shop');
    const account = {
      shopId: shop.shopId,
      serviceId: '70002',
      merchantId: '30002',
      secretKey: 'click-page-secret-key',
    };
    ({ ingest, click } = await startClick(stack, account));
    await untilOrdersHasIds(stack, shop.shopId, 'click', { serviceId: '70002', merchantId: '30002' });
    checkout = await startCheckout(
      loadCheckoutConfig(
        stack.env(
          {
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

  /** A hosted order's link, on the checkout. */
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

  /** The Click button of a new hosted order's page of the shop: its deeplink's query, or null. */
  async function clickButtonOf(s: TestShop): Promise<Record<string, string> | null> {
    const { link } = await hostedOrder(s);
    const page = await browser.newPage();
    try {
      await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
      expect(await page.$('#cardNumber')).not.toBeNull();
      const href = await page.$eval('#pay-click', (a) => a.getAttribute('href')).catch(() => null);
      return href ? Object.fromEntries(new URL(href).searchParams) : null;
    } finally {
      await page.close();
    }
  }

  it("when an operator sets a shop's Click account, then its page shows the button with those ids; after DELETE it does not", async () => {
    expect(await clickButtonOf(later)).toBeNull();
    await setProviderAccount(stack, later.shopId, 'click', {
      serviceId: '70012',
      merchantId: '30012',
      secretKey: 'click-later-secret-key',
    });
    await untilOrdersHasIds(stack, later.shopId, 'click', { serviceId: '70012', merchantId: '30012' });
    expect(await clickButtonOf(later)).toMatchObject({ service_id: '70012', merchant_id: '30012' });

    await deleteProviderAccount(stack, later.shopId, 'click');
    await untilOrdersHasIds(stack, later.shopId, 'click', null);
    expect(await clickButtonOf(later)).toBeNull();
  });

  it("when orders keeps the shop's settings, then it has the account's public ids and never its secret, clear or sealed", async () => {
    const stored = await untilOrdersHasIds(stack, shop.shopId, 'click', { serviceId: '70002', merchantId: '30002' });
    expect(JSON.parse(stored).providerIds).toEqual({ click: { serviceId: '70002', merchantId: '30002' } });
    expect(stored).not.toContain('click-page-secret-key');
    expect(stored).not.toContain('secretKey');
    expect(stored).not.toContain('providerAccounts');
    expect(stored).not.toMatch(/v1:/);
  });
});
