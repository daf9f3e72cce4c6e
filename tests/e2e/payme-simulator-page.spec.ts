import type { Browser, Page } from 'puppeteer-core';
import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadCheckoutConfig, RunningCheckout, startCheckout } from '@payments/apps/checkout';
import type { RunningSandbox } from '@payments/apps/provider-sandbox';
import { paymeCheckoutLink } from '@payments/providers/payme';
import { eventually, http, launchBrowser, saveScreenshot, uniqueName } from '@payments/testing';
import { startPayme } from '../support/payme';
import { untilOrdersHasIds } from '../support/provider-accounts';
import { aHostedOrder, aShop, TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

const MERCHANT = '8c3e4f5a6b7c8d9e0f1a2b3c';
const KEY = 'payme-page-simulator-key';

/**
 * "Pay with Payme" end to end in a real headless Chromium (issue 30): the hosted page's link goes to
 * the sandbox's Payme checkout (PAYME_CHECKOUT_URL), which decodes it; the payer pays, cancels or,
 * once paid, cancels the payment, and the simulator calls callbacks-ingest as Payme does. Desktop and
 * phone screenshots of every page in .run/screenshots.
 */
describe('hosted page: a payer pays with Payme in the sandbox', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let ingest: RunningCallbacksIngest;
  let payme: RunningSandbox;
  let checkout: RunningCheckout;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'methods'], checkout: true });
    shop = await aShop(stack.gateway!.url, 'Chorsu Payme Sandbox');
    const cashbox = { shopId: shop.shopId, merchantId: MERCHANT, key: KEY };
    ({ ingest, payme } = await startPayme(stack, cashbox));
    // The cashbox reaches the page through orders' view (decision 342), as it reaches callbacks-ingest.
    await untilOrdersHasIds(stack, shop.shopId, 'payme', { merchantId: MERCHANT });
    checkout = await startCheckout(
      loadCheckoutConfig(
        stack.env(
          {
            PAYME_CHECKOUT_URL: `${payme.url}/payme/checkout`,
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
    await payme?.close();
    await ingest?.close();
    await stack?.stop();
  });

  const order = async (id: string) =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;
  const outcome = (page: Page) => page.$eval('#outcome', (e) => e.textContent);

  /**
   * A phone's width of the page now showing, beside the desktop one. Not `isMobile`: Chromium
   * reloads the page for it, which would post an outcome page's form again.
   */
  async function screenshots(page: Page, name: string): Promise<void> {
    await saveScreenshot(page, `${name}-desktop`);
    await page.setViewport({ width: 390, height: 844 });
    await saveScreenshot(page, `${name}-phone`);
    await page.setViewport({ width: 1280, height: 900 });
  }

  /** Opens the order's hosted page and follows "Pay with Payme" to the simulator. */
  async function toPayme(page: Page, link: string): Promise<void> {
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${link}?lang=en`, { waitUntil: 'load' });
    expect(await page.$eval('#pay-payme', (a) => a.getAttribute('href'))).toMatch(`${payme.url}/payme/checkout/`);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#pay-payme')]);
  }
  const press = (page: Page, button: string) =>
    Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(button)]);

  it('when the payer pays in Payme, then the simulator says paid, the order is completed, and a refund cancels the payment', async () => {
    const { id, link } = await aHostedOrder(stack.gateway!.url, checkout.url, shop, '125000.50', 'UZS');
    const page = await browser.newPage();
    await toPayme(page, link);
    expect(await page.$eval('main', (m) => m.textContent)).toContain('125000.50 UZS');
    expect(await page.$eval('main', (m) => m.textContent)).toContain(`Payment of order ${id.slice(0, 8)}`);
    await screenshots(page, 'payme-sim-confirm');

    await press(page, '#pay');
    expect(await outcome(page)).toBe('Paid.');
    await screenshots(page, 'payme-sim-paid');
    const paid = await untilStatus(() => order(id), 'completed', 'order paid with Payme in the sandbox');
    expect(paid.data.payments).toEqual([expect.objectContaining({ provider: 'payme', status: 'success' })]);
    // Back on the hosted page, the payer sees it paid (the page's live view may lag, decision 223).
    const hosted = await browser.newPage();
    await hosted.setViewport({ width: 1280, height: 900 });
    const title = await eventually(
      async () => {
        await hosted.goto(`${link}?lang=en`, { waitUntil: 'load' });
        const h1 = await hosted.$eval('#msg', (e) => e.textContent).catch(() => undefined);
        return h1 === 'Payment complete' ? h1 : undefined;
      },
      15_000,
      'the hosted page says the payment is complete',
    );
    expect(title).toBe('Payment complete');
    await screenshots(hosted, 'payme-sim-hosted-paid');
    await hosted.close();

    await press(page, '#refund');
    expect(await outcome(page)).toBe('Refunded.');
    await screenshots(page, 'payme-sim-refunded');
    const refunded = await untilStatus(() => order(id), 'refunded', 'order refunded from the Payme page');
    expect(refunded.data.refunds).toEqual([expect.objectContaining({ amount: '125000.50' })]);
    await page.close();
  });

  it('when the payer cancels in Payme, then the simulator says cancelled and the order is still payable', async () => {
    const { id, link } = await aHostedOrder(stack.gateway!.url, checkout.url, shop, '99000.00', 'UZS');
    const page = await browser.newPage();
    await toPayme(page, link);
    await press(page, '#cancel');
    expect(await outcome(page)).toBe('Cancelled.');
    await screenshots(page, 'payme-sim-cancelled');
    expect((await order(id)).status).toBe('registered');
    // Paying from the same link afterwards still works: the cancelled transaction holds nothing.
    await toPayme(page, link);
    await press(page, '#pay');
    expect(await outcome(page)).toBe('Paid.');
    await untilStatus(() => order(id), 'completed', 'order paid after a cancel');
    await page.close();
  });

  it('when the shop answers an error, then the simulator shows it with its code; a bad link says why', async () => {
    const { id } = await aHostedOrder(stack.gateway!.url, checkout.url, shop, '50000.00', 'UZS');
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const wrong = paymeCheckoutLink({
      merchantId: MERCHANT,
      orderId: id,
      amount: '50000.01',
      base: `${payme.url}/payme/checkout`,
    });
    await page.goto(wrong, { waitUntil: 'load' });
    await press(page, '#pay');
    expect(await outcome(page)).toBe('Not paid: Wrong amount (-31001).');
    await screenshots(page, 'payme-sim-error');
    expect((await order(id)).status).toBe('registered');

    const res = await page.goto(`${payme.url}/payme/checkout/bm90LWEtbGluaw==`, { waitUntil: 'load' });
    expect(res?.status()).toBe(400);
    expect(await outcome(page)).toBe(
      'This Payme link cannot be paid: m must be the 24 hex digits of a Payme merchant id.',
    );
    await screenshots(page, 'payme-sim-bad-link');
    await page.close();
  });
});
