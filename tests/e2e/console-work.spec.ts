import type { Browser, Page } from 'puppeteer-core';
import { randomUUID } from 'node:crypto';
import { eventually, http, saveScreenshot, testKafka } from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { ConsoleBrowser, ConsoleOperator } from '../support/console-browser';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { anUnansweredOrder } from '../support/provider-events';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import { untilStatus } from '../support/wait';

/**
 * The operators' work in the console, in a real headless Chromium against the real stack (issue 15
 * item 3): the need_action queue, the merchant callbacks and their replay, orders searched and
 * opened, dead letters redriven or discarded, payouts and P2P transactions. Each step leaves a
 * screenshot. Sign-in, the overview, the audit log and roles: console.spec.ts.
 */
describe('the operators console in a browser: orders, callbacks, dead letters, transfers', () => {
  let c: ConsoleBrowser;
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let operator: ConsoleOperator;
  /** The shop's callback endpoint: it answers 500 until the replay test mends it. */
  let receiver: CallbackReceiver;
  /** The order the need_action test accepts on the page; the callbacks test replays its callback. */
  let accepted: string;

  beforeAll(async () => {
    // Callbacks give up after 1.5 s of failures here, so a failed one can be replayed.
    c = await ConsoleBrowser.start({
      shopName: 'Console Shop',
      extraEnv: { MERCHANT_CALLBACKS_RETRY_WINDOW_MS: '1500' },
      callbacks: true,
    });
    ({ stack, browser, shop, operator } = c);
    receiver = c.receiver!;
  });

  afterAll(async () => {
    await c?.stop();
  });

  const consoleUrl = (path = '') => c.url(path);
  const signIn = (page: Page, token: string) => c.signIn(page, token);

  /** An order the sandbox leaves in need_action: .21 pays another amount, .22 another currency. */
  async function needActionOrder(amount: string): Promise<string> {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount }),
    });
    expect(created.status).toBe(201);
    const read = async () =>
      (await http('GET', `${stack.gateway!.url}/order/${created.body.id}`, { token: shop.apiKey })).body;
    await untilStatus(read, 'need_action', `order ${created.body.id} need_action`);
    return created.body.id;
  }

  it('when orders wait in need_action, then the queue explains each; another operator resolving one removes it, and resolving one here with a reason is audited', async () => {
    const [byOther, byHere] = [await needActionOrder('40.22'), await needActionOrder('60.21')];
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await signIn(page, operator.token);
    await page.goto(consoleUrl('/need-action'));
    const card = (id: string) => `article[data-order="${id}"]`;
    await page.waitForSelector(card(byOther));
    const other = await page.$eval(card(byOther), (a) => a.textContent ?? '');
    expect(other).toContain('The provider paid in another currency');
    expect(other).toContain('40.22 USD');
    expect(other).toContain('40.22 EUR');
    expect(other).toMatch(/Tolerance applied\s*−\d+ % \/ \+\d+ %/);
    const here = await page.$eval(card(byHere), (a) => a.textContent ?? '');
    expect(here).toContain('The paid amount is outside the allowed range');
    await saveScreenshot(page, 'console-need-action');
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-need-action-phone');
    await page.setViewport({ width: 1280, height: 900 });

    // Another operator (the API, OPS_TOKEN) fails one: this page drops it at its next refresh.
    const failed = await http('POST', `${stack.backoffice!.url}/ops/v1/orders/${byOther}/resolve`, {
      token: TEST_OPS_TOKEN,
      body: { action: 'fail', note: 'Paid in EUR; refunded by the provider' },
    });
    expect(failed.status).toBe(200);
    await page.waitForSelector(card(byOther), { hidden: true, timeout: 15_000 });

    // This operator accepts the other with a reason: it leaves the queue, and the audit log has it.
    await page.type(`${card(byHere)} input[name="note"]`, 'Customer paid the difference by phone');
    await Promise.all([page.waitForNavigation(), page.click(`${card(byHere)} form.resolve button[type="submit"]`)]);
    expect(await page.$(card(byHere))).toBeNull();
    accepted = byHere;
    const audit = await http('GET', `${stack.backoffice!.url}/ops/v1/audit?action=order.resolve&objectId=${byHere}`, {
      token: TEST_OPS_TOKEN,
    });
    expect(audit.body.items[0]).toMatchObject({
      operator: { id: operator.id, name: 'Dana Operator' },
      reason: 'Customer paid the difference by phone',
      before: { status: 'need_action', needAction: { rule: 'amount_outside_range' } },
      after: { status: 'completed' },
    });
    await page.close();
  });

  it('when the callback of the accepted order failed, then the log shows each answer, and a replay from the page delivers it once more and is audited', async () => {
    const api = (path: string) => http('GET', `${stack.backoffice!.url}/ops/v1${path}`, { token: TEST_OPS_TOKEN });
    const completed = await eventually(
      async () => {
        const page = await api(`/callbacks?objectId=${accepted}&status=failed`);
        return page.body.items.find((d: { type: string; attempts: number }) => d.attempts > 0) as
          { id: string; eventId: string } | undefined;
      },
      20_000,
      'a failed callback of the accepted order',
    );
    receiver.mode = 200;
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    await page.goto(consoleUrl(`/callbacks?shopId=${shop.shopId}&status=failed`));
    const row = `tr[data-delivery="${completed.id}"]`;
    expect(await page.$eval(row, (r) => r.textContent ?? '')).toContain('HTTP 500');
    await saveScreenshot(page, 'console-callbacks');

    await Promise.all([page.waitForNavigation(), page.click(`${row} button[type="submit"]`)]);
    await eventually(
      async () => ((await api(`/callbacks/${completed.id}`)).body.status === 'delivered' ? true : undefined),
      20_000,
      'the replayed callback delivered',
    );
    expect(receiver.received.filter((r) => r.json?.eventId === completed.eventId && r.answered === 200)).toHaveLength(
      1,
    );
    const audit = await api(`/audit?action=delivery.replay&objectId=${completed.id}`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      operator: { name: 'Dana Operator' },
      before: { status: 'failed' },
    });

    await page.goto(consoleUrl(`/callbacks/${completed.id}`));
    const attempts = await page.$$eval('main tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(attempts.some((a) => a.includes('HTTP 500'))).toBe(true);
    expect(attempts[attempts.length - 1]).toContain('HTTP 200');
    await saveScreenshot(page, 'console-callback');
    await page.close();
  });

  it('when an operator searches orders by shop and opens one by its id, then the detail shows its status history, attempts and callbacks', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    await page.goto(consoleUrl(`/orders?shopId=${shop.shopId}`));
    const listed = await page.$$eval('main tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-order')));
    expect(listed).toContain(accepted);
    await saveScreenshot(page, 'console-orders');

    await page.goto(consoleUrl('/orders'));
    await page.type('#q', accepted);
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type="submit"]')]);
    expect(page.url()).toBe(consoleUrl(`/orders/${accepted}`));
    const text = await page.$eval('main', (m) => m.textContent ?? '');
    expect(text).toContain('completed');
    expect(text).toContain('Status history');
    const steps = await page.$$eval('main section:nth-of-type(2) tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(steps.map((s) => s[2])).toEqual(expect.arrayContaining(['need_action', 'completed']));
    expect(text).toContain('sandbox');
    await saveScreenshot(page, 'console-order');

    await page.goto(consoleUrl('/orders?q=00000000-0000-4000-8000-000000000000'));
    expect(await page.$eval('.notice', (n) => n.textContent)).toBe('No order has this id.');
    await page.close();
  });

  it('when dead letters wait, then the page shows their error and origin; redriving one applies it once, and discarding one needs a reason', async () => {
    // An order the sandbox took and never answered (.99), and its provider event dead-lettered.
    const { id: orderId, read, event } = await anUnansweredOrder(stack.gateway!.url, shop, '70.99');
    const garbageKey = randomUUID();
    const producer = testKafka('test-dlq').producer();
    await producer.connect();
    const headers = {
      'dlq-error': 'handler failed: the database was down',
      'dlq-original-topic': 'provider.events',
      'dlq-consumer-group': 'orders',
      'dlq-attempts': '5',
      'dlq-at': new Date().toISOString(),
    };
    await producer.send({
      topic: `${stack.prefix}provider.events.dlq`,
      messages: [
        { key: orderId, value: JSON.stringify(event), headers },
        {
          key: garbageKey,
          value: 'not json at all',
          headers: { ...headers, 'dlq-error': 'invalid envelope: value is not JSON' },
        },
      ],
    });
    await producer.disconnect();
    const api = (path: string) => http('GET', `${stack.backoffice!.url}/ops/v1${path}`, { token: TEST_OPS_TOKEN });
    const [letter, garbage] = await eventually(
      async () => {
        const items = (await api('/dead-letters?status=open')).body.items as { id: string; key: string }[];
        const l = items.find((i) => i.key === orderId);
        const g = items.find((i) => i.key === garbageKey);
        return l && g ? [l, g] : undefined;
      },
      20_000,
      'both dead letters copied',
    );

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    await page.goto(consoleUrl('/dead-letters'));
    const row = (id: string) => `tr[data-dead-letter="${id}"]`;
    expect(await page.$eval(row(letter.id), (r) => r.textContent ?? '')).toContain(
      'handler failed: the database was down',
    );
    expect(await page.$(`${row(garbage.id)} input[type="checkbox"]`)).toBeNull();
    await saveScreenshot(page, 'console-dead-letters');

    await page.click(`${row(letter.id)} input[type="checkbox"]`);
    await page.type('#redrive-reason', 'The database is back');
    await Promise.all([page.waitForNavigation(), page.click('form#redrive button[type="submit"]')]);
    expect(await page.$(row(letter.id))).toBeNull();
    await untilStatus(read, 'completed', 'order completed by the redriven event');
    const again = await http('POST', `${stack.backoffice!.url}/ops/v1/dead-letters/redrive`, {
      token: TEST_OPS_TOKEN,
      body: { ids: [letter.id] },
    });
    expect(again.body.redriven).toEqual([]);

    // Discarding without a reason is stopped by the form; with one it leaves the open list.
    await page.click(`${row(garbage.id)} form.discard button[type="submit"]`);
    expect(await page.$(row(garbage.id))).not.toBeNull();
    await page.type(`${row(garbage.id)} input[name="reason"]`, 'Garbage from a test tool');
    await Promise.all([page.waitForNavigation(), page.click(`${row(garbage.id)} form.discard button[type="submit"]`)]);
    expect(await page.$(row(garbage.id))).toBeNull();
    expect((await api(`/dead-letters/${garbage.id}`)).body).toMatchObject({
      status: 'discarded',
      resolvedBy: 'Dana Operator',
      reason: 'Garbage from a test tool',
    });
    expect((await api(`/dead-letters/${letter.id}`)).body).toMatchObject({
      status: 'redriven',
      resolvedBy: 'Dana Operator',
    });
    await page.close();
  });

  it('when an operator searches payouts and P2P transactions, then each opens with its status and card numbers masked', async () => {
    const payout = await http('POST', `${stack.gateway!.url}/payouts`, { token: shop.apiKey, body: aPayoutRequest() });
    expect(payout.status).toBe(201);
    const p2p = await http('POST', `${stack.gateway!.url}/p2p`, { token: shop.apiKey, body: aP2pRequest() });
    expect(p2p.status).toBe(201);

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    for (const [kind, id, merchantId] of [
      ['payouts', payout.body.id, payout.body.payout.merchantPayoutId],
      ['p2p', p2p.body.id, p2p.body.p2p.merchantP2pId],
    ] as const) {
      await page.goto(consoleUrl(`/${kind}?q=${encodeURIComponent(merchantId)}`));
      expect(await page.$$eval('main tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-transfer')))).toEqual([
        id,
      ]);
      await Promise.all([page.waitForNavigation(), page.click(`tr[data-transfer="${id}"] a`)]);
      const text = await page.$eval('main', (m) => m.textContent ?? '');
      expect(text).toContain(merchantId);
      expect(text).toContain('860012******9012');
      expect(text).not.toContain('8600123456789012');
      expect(text).not.toContain('4111111111111111');
      await saveScreenshot(page, `console-${kind}-one`);
    }
    await page.close();
  });

  it('when an order and a payout wait on their hosted pages, then their pages show the link live until when, and not the link', async () => {
    const hosted = await aShop(stack.gateway!.url, 'Console Hosted Shop');
    await withPayoutMethods(stack.gateway!.url, hosted.shopId);
    const on = await http('PATCH', `${stack.backoffice!.url}/ops/v1/shops/${hosted.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { payoutViaPaymentPage: true },
    });
    expect(on.status).toBe(200);
    const order = await http('POST', `${stack.gateway!.url}/order`, {
      token: hosted.apiKey,
      body: { ...anOrderRequest({ amount: '25.00', currency: 'USD' }), paymentPageDesign: { format: 'hosted' } },
    });
    expect(order.status).toBe(201);
    expect(order.body.data.paymentLink).toBeDefined();
    // The setting reaches the payouts service over Kafka: until then a payout without payee is a 400.
    const payout = await eventually(
      async () => {
        const res = await http('POST', `${stack.gateway!.url}/payouts`, {
          token: hosted.apiKey,
          body: {
            payout: { merchantPayoutId: `link-${randomUUID()}`, cost: { amount: '250000.00', currency: 'UZS' } },
          },
        });
        return res.status === 201 ? res.body : undefined;
      },
      15000,
      'a payout via payment page',
    );
    expect(payout.data.payoutLinkStatus).toBe('live');

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, operator.token);
    for (const [path, expiresAt, link] of [
      [`/orders/${order.body.id}`, order.body.data.expiresAt, order.body.data.paymentLink],
      [`/payouts/${payout.id}`, payout.data.expiresAt, payout.data.payoutLink],
    ] as const) {
      await page.goto(consoleUrl(path));
      const row = await page.$eval('[data-link-status]', (d) => [d.getAttribute('data-link-status'), d.textContent]);
      expect(row[0]).toBe('live');
      expect(row[1]).toContain(`until ${expiresAt.replace('T', ' ').slice(0, 19)} UTC`);
      // The link pays (or pays out): operators see where it is, never the link itself.
      expect(await page.content()).not.toContain(link.split('/').pop());
    }
    await saveScreenshot(page, 'console-payout-link');
    await page.close();
  });

  it('when an operator opens a payout, then its page shows its sends to the provider and the merchant callbacks sent', async () => {
    const payout = await http('POST', `${stack.gateway!.url}/payouts`, { token: shop.apiKey, body: aPayoutRequest() });
    expect(payout.status).toBe(201);
    const attempts = await eventually(
      async () => {
        const res = await http('GET', `${stack.backoffice!.url}/ops/v1/payouts/${payout.body.id}/attempts`, {
          token: TEST_OPS_TOKEN,
        });
        return res.body.items.length && res.body.items[0].status !== 'pending' ? res.body.items : undefined;
      },
      15_000,
      'the payout sent to its provider',
    );
    expect(attempts[0]).toMatchObject({ provider: expect.any(String), sends: 1 });
    await eventually(
      async () => {
        const res = await http('GET', `${stack.backoffice!.url}/ops/v1/callbacks?objectId=${payout.body.id}`, {
          token: TEST_OPS_TOKEN,
        });
        return res.body.items.length ? true : undefined;
      },
      15_000,
      'a callback of the payout',
    );

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    await signIn(page, operator.token);
    await page.goto(consoleUrl(`/payouts/${payout.body.id}`));
    const sends = await page.$$eval('li[data-attempt]', (lis) => lis.map((li) => li.textContent ?? ''));
    expect(sends).toHaveLength(attempts.length);
    expect(sends[0]).toContain(attempts[0].status);
    expect(await page.$$('main a[href^="/ops/console/callbacks/"]')).not.toHaveLength(0);
    expect(await page.$eval('main', (m) => m.textContent ?? '')).toContain('Sends to the provider');
    await saveScreenshot(page, 'console-payout-attempts');
    await page.close();
  });
});
