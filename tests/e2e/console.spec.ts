import type { Browser, Page } from 'puppeteer-core';
import { randomUUID } from 'node:crypto';
import { envelope } from '@payments/contracts';
import { eventually, http, launchBrowser, saveScreenshot, testKafka } from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import { untilStatus } from '../support/wait';

/**
 * The operators' console in a real headless Chromium against the real stack (issue 15 item 3):
 * sign-in with a named operator's token, the overview, the audit log, CSRF on every change, a
 * viewer refused, sign-out. Each step leaves a screenshot (docs/console.md shows some).
 */
describe('the operators console in a browser', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let operator: { id: string; token: string };
  let viewer: { id: string; token: string };
  /** The shop's callback endpoint: it answers 500 until the replay test mends it. */
  let receiver: CallbackReceiver;
  /** The order the need_action test accepts on the page; the callbacks test replays its callback. */
  let accepted: string;

  beforeAll(async () => {
    // Callbacks give up after 1.5 s of failures here, so a failed one can be replayed.
    stack = await TestStack.start({
      extraEnv: { KAFKA_METRICS_INTERVAL_MS: '500', MERCHANT_CALLBACKS_RETRY_WINDOW_MS: '1500' },
    });
    shop = await aShop(stack.gateway!.url, 'Console Shop');
    receiver = await CallbackReceiver.start();
    receiver.mode = 500;
    const withCallbacks = await http('PATCH', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { callbackUrl: receiver.url },
    });
    expect(withCallbacks.status).toBe(200);
    // Each payout test stands alone: the shop's payout methods are there from the start.
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    const create = async (name: string, role: string) => {
      const res = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
        token: TEST_OPS_TOKEN,
        body: { name, role },
      });
      expect(res.status).toBe(201);
      return res.body;
    };
    operator = await create('Dana Operator', 'operator');
    viewer = await create('Vic Viewer', 'viewer');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const consoleUrl = (path = '') => `${stack.backoffice!.url}/ops/console${path}`;

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(consoleUrl('/sign-in'));
    await page.type('#token', token);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }

  /** The page's session cookie and CSRF token, as its own script would send them. */
  async function credentialsOf(page: Page): Promise<{ cookie: string; csrf: string }> {
    const cookies = await page.cookies();
    const session = cookies.find((c) => c.name === 'ops_session')!;
    const csrf = await page.$eval('meta[name="csrf-token"]', (m) => m.getAttribute('content')!);
    return { cookie: `ops_session=${session.value}`, csrf };
  }

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
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '70.99' }),
    });
    const read = async () =>
      (await http('GET', `${stack.gateway!.url}/order/${created.body.id}`, { token: shop.apiKey })).body;
    const waiting = await untilStatus(read, 'in_progress', 'order in_progress');
    const event = envelope({
      type: 'provider.event',
      occurredAt: new Date(),
      payload: {
        providerCode: 'sandbox',
        providerEventId: `sbx-dlq-${randomUUID()}`,
        kind: 'payment',
        reference: created.body.id,
        paymentId: waiting.data.payments[0].paymentId,
        status: 'success',
        amount: '70.99',
        currency: 'USD',
        receivedAt: new Date().toISOString(),
      },
    });
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
        { key: created.body.id, value: JSON.stringify(event), headers },
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
        const l = items.find((i) => i.key === created.body.id);
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
