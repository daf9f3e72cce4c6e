import { randomUUID } from 'node:crypto';
import { Partitioners, Producer } from 'kafkajs';
import { Client } from 'pg';
import type { Browser, Page } from 'puppeteer-core';
import { envelope, Topics } from '@payments/contracts';
import { eventually, http, launchBrowser, saveScreenshot, testKafka } from '@payments/testing';
import { orderStatusChange } from '../../apps/ledger/src/two-ledgers.spec-support';
import { aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * The books in the operators' console, in a real headless Chromium against the gateway, the
 * backoffice and the ledger (issue 29 items 3, 4 and 6; decisions 303, 308, 309): from the
 * navigation to a shop's balances and ledger transactions; an admin's manual adjustment from the
 * page, and the refusal a person reads when the balance cannot cover a debit; fees, settlement
 * delay and rates set from their pages; an operator sees no adjustment form; amounts padded to
 * their currency's scale; what a shop owes (decision 345) and a settlement that repaid it
 * (decision 348); a credit parked in suspense released by an admin (decision 344); the navigation
 * on one line at 1280 px. Each step leaves a screenshot, desktop and phone.
 */
describe('the operators console in a browser: balances, transactions, adjustments, fees and rates', () => {
  let stack: TestStack;
  let browser: Browser;
  let shop: TestShop;
  let admin: { id: string; token: string };
  let operator: { id: string; token: string };
  /** One event on a contract topic of this stack, keyed by its aggregate. */
  const publish = (producer: Producer, topic: string, key: string, value: unknown) =>
    producer.send({ topic: stack.prefix + topic, messages: [{ key, value: JSON.stringify(value) }] });

  beforeAll(async () => {
    // The conversion sweep runs often: a released credit is converted while the test waits.
    stack = await TestStack.start({ services: ['gateway', 'ledger'], extraEnv: { LEDGER_RATE_CONVERSION_MS: '300' } });
    shop = await aShop(stack.gateway!.url, 'Books Shop');
    const create = async (name: string, role: string) => {
      const res = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
        token: TEST_OPS_TOKEN,
        body: { name, role },
      });
      expect(res.status).toBe(201);
      return res.body as { id: string; token: string };
    };
    admin = await create('Ada Admin', 'admin');
    operator = await create('Dana Operator', 'operator');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const url = (path = '') => `${stack.backoffice!.url}/ops/console${path}`;
  const booksOf = () => url(`/shops/${shop.shopId}/books`);

  async function signedIn(token: string): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url('/sign-in'));
    await page.type('#token', token);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    return page;
  }

  const text = (page: Page, selector: string) => page.$eval(selector, (e) => (e as HTMLElement).innerText);

  async function post(page: Page, form: string, fields: Record<string, string>): Promise<void> {
    for (const [name, value] of Object.entries(fields)) {
      await page.$eval(`${form} [name="${name}"]`, (e) => ((e as unknown as { value: string }).value = ''));
      await page.type(`${form} [name="${name}"]`, value);
    }
    await Promise.all([page.waitForNavigation(), page.click(`${form} button[type="submit"]`)]);
  }

  it('when an admin opens a shop from Books and credits it, then the balance and the transaction show, with who and why, escaped', async () => {
    const page = await signedIn(admin.token);
    await page.click('nav a[href="/ops/console/books"]');
    await page.waitForSelector('#shopId');
    await page.type('#shopId', shop.shopId);
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type="submit"]')]);
    expect(page.url()).toBe(booksOf());
    expect(await text(page, '#balances')).toContain('No money was ever booked for this shop.');

    await post(page, '#adjust', { currency: 'USD', amount: '125.50', reason: 'Goodwill <b>credit</b>, ticket 4411' });
    // Padded to the currency's scale (USD: 2), right-aligned.
    expect(await text(page, '#balances tr[data-currency="USD"]')).toMatch(/USD\s+125\.50\s+0\.00\s+0\.00\s+0\.00/);
    expect(
      await page.evaluate(`getComputedStyle(document.querySelector('#balances td[data-available]')).textAlign`),
    ).toBe('right');
    // The navigation fits one line at 1280 px: every link, the brand and who is signed in side by side.
    const navTops = (await page.evaluate(
      `[...document.querySelectorAll('header nav a, header .brand, header .who')].map((e) => e.getBoundingClientRect().top)`,
    )) as number[];
    expect(navTops).toHaveLength(12);
    expect(Math.max(...navTops) - Math.min(...navTops)).toBeLessThan(10);
    const row = await text(page, '#transactions tr[data-kind="manual_adjustment"]');
    expect(row).toContain('Manual adjustment');
    expect(row).toContain('by Ada Admin: Goodwill <b>credit</b>, ticket 4411');
    expect(row).toMatch(/125\.50 USD\s+0\.00\s+125\.50\s+125\.50 USD/);
    expect(await page.$('#transactions b')).toBeNull();
    await post(page, '#adjust', { amount: '-20.25', reason: 'Chargeback fee of order 1001' });
    expect(await text(page, '#balances tr[data-currency="USD"]')).toMatch(/USD\s+105\.25/);
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.length)).toBe(2);
    expect(await text(page, '#transactions tr[data-kind="manual_adjustment"]')).toMatch(/-20\.25 USD/);
    await saveScreenshot(page, 'console-books-balances');

    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.reload();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // On a phone every link of the navigation is on the page, none cut off.
    const rights = (await page.evaluate(
      `[...document.querySelectorAll('header nav a')].map((e) => e.getBoundingClientRect().right)`,
    )) as number[];
    expect(rights).toHaveLength(10);
    for (const right of rights) expect(right).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-books-balances-phone');
    await page.close();

    const audit = await http('GET', `${stack.backoffice!.url}/ops/v1/audit?action=ledger.adjustment.post`, {
      token: TEST_OPS_TOKEN,
    });
    expect(
      audit.body.items.map((a: { operator: { name: string }; reason: string }) => [a.operator.name, a.reason]),
    ).toEqual([
      ['Ada Admin', 'Chargeback fee of order 1001'],
      ['Ada Admin', 'Goodwill <b>credit</b>, ticket 4411'],
    ]);
  });

  it('when an admin debits more than is available, then the form says why in words and nothing is posted', async () => {
    const page = await signedIn(admin.token);
    await page.goto(booksOf());
    await page.type('#adjust [name="amount"]', '-500');
    await page.type('#adjust [name="reason"]', 'Reverse the duplicate credit');
    await page.click('#adjust button[type="submit"]');
    await page.waitForSelector('#adjust [role="alert"]:not([hidden])');
    expect(await text(page, '#adjust [role="alert"]')).toBe(
      'amount: the available balance 105.25 USD cannot cover a debit of 500 USD; nothing was posted',
    );
    await saveScreenshot(page, 'console-books-adjustment-refused');
    // On a phone (the viewport change reloads the page), the same refusal under the form.
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.type('#adjust [name="amount"]', '-105.26');
    await page.type('#adjust [name="reason"]', 'One cent too many');
    await page.click('#adjust button[type="submit"]');
    await page.waitForSelector('#adjust [role="alert"]:not([hidden])');
    expect(await text(page, '#adjust [role="alert"]')).toContain('cannot cover a debit of 105.26 USD');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-books-adjustment-refused-phone');
    await page.reload();
    expect(await text(page, '#balances tr[data-currency="USD"]')).toMatch(/USD\s+105\.25/);
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.length)).toBe(2);
    await page.close();
  });

  it('when an operator opens the books, then there is no adjustment form; fees, the settlement delay and a rate are set from their pages', async () => {
    const page = await signedIn(operator.token);
    await page.goto(booksOf());
    expect(await page.$('#adjust')).toBeNull();
    expect(await text(page, '#adjustment')).toContain('Only an admin can post a manual adjustment.');

    await page.click(`a[href="/ops/console/shops/${shop.shopId}/fees"]`);
    await page.waitForSelector('#set-fee');
    await post(page, '#set-fee', {
      method: '*',
      currency: 'USD',
      percent: '2.5',
      fixed: '0.30',
      minimum: '1.00',
      reason: 'Contract schedule B',
    });
    expect(await text(page, '#fees tr[data-fee="*/USD"]')).toMatch(/\*\s+USD\s+2\.5 %\s+0\.30\s+1\.00/);
    await post(page, '#set-fee', {
      method: 'card',
      currency: 'USDT-TRC20',
      percent: '0',
      fixed: '1',
      minimum: '0',
      reason: 'Token payouts',
    });
    await post(page, '#set-settlement', { settlementDelaySeconds: '3600', reason: 'One hour for this merchant' });
    expect(await text(page, '#settlement')).toContain('3600 seconds (1 hour)');
    await page.type('#fees tr[data-fee="card/USDT-TRC20"] input[name="reason"]', 'Not needed');
    await Promise.all([
      page.waitForNavigation(),
      page.click('#fees tr[data-fee="card/USDT-TRC20"] button[type="submit"]'),
    ]);
    expect(await page.$('#fees tr[data-fee="card/USDT-TRC20"]')).toBeNull();
    await saveScreenshot(page, 'console-books-fees');
    const fees = await http('GET', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/fees`, { token: admin.token });
    expect(fees.body.fees.map((f: { method: string; currency: string }) => `${f.method}/${f.currency}`)).toEqual([
      '*/USD',
    ]);

    // A fee the rules refuse: the page says which field.
    await page.$eval('#set-fee [name="percent"]', (e) => ((e as unknown as { value: string }).value = ''));
    await page.type('#set-fee [name="percent"]', '101');
    await page.type('#set-fee [name="method"]', 'card');
    await page.type('#set-fee [name="currency"]', 'USD');
    await page.type('#set-fee [name="reason"]', 'Typo');
    await page.click('#set-fee button[type="submit"]');
    await page.waitForSelector('#set-fee [role="alert"]:not([hidden])');
    expect(await text(page, '#set-fee [role="alert"]')).toContain('percent: must be between 0 and 100');

    await page.click('nav a[href="/ops/console/books"]');
    await page.waitForSelector('#add-rate');
    await post(page, '#add-rate', {
      base: 'USD',
      quote: 'USDT-TRC20',
      rate: '0.998',
      validFrom: '2026-11-27T00:00:00Z',
      reason: 'Treasury rate of the day',
    });
    expect(await text(page, '#rates tbody')).toMatch(
      /USD → USDT-TRC20\s+0\.998\s+2026-11-27 00:00:00\s+open\s+operator:/,
    );
    await saveScreenshot(page, 'console-books-rates');
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(url(`/shops/${shop.shopId}/fees`));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'console-books-fees-phone');
    await page.close();
  });

  it('when a shop has more than a page of transactions, then Older transactions pages on and Newest transactions comes back', async () => {
    for (let i = 0; i < 50; i++) {
      const credit = await http('POST', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/adjustments`, {
        token: admin.token,
        body: { currency: 'USD', amount: '0.01', reason: `Rounding ${i}` },
      });
      expect(credit.status).toBe(201);
    }
    const page = await signedIn(operator.token);
    await page.goto(booksOf());
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.length)).toBe(50);
    expect(await text(page, '#balances tr[data-currency="USD"]')).toMatch(/USD\s+105\.75/);
    await Promise.all([page.waitForNavigation(), page.click('#transactions a[href*="cursor="]')]);
    const older = await page.$$eval('#transactions tbody tr', (rows) => rows.map((r) => (r as HTMLElement).innerText));
    expect(older).toHaveLength(2);
    expect(older.join('\n')).toContain('Goodwill <b>credit</b>, ticket 4411');
    await Promise.all([
      page.waitForNavigation(),
      page.click(`#transactions a[href="/ops/console/shops/${shop.shopId}/books"]`),
    ]);
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.length)).toBe(50);
    await page.close();
  });

  it('when a settlement repays what a shop owes, then its row says how much, at the currency scale; other rows say nothing', async () => {
    const owing = await aShop(stack.gateway!.url, 'Owing Shop');
    const producer = testKafka('console-books-repaid').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      const ops = `${stack.backoffice!.url}/ops/v1/shops/${owing.shopId}`;
      const fee = await http('PUT', `${ops}/fees/p2p/USD`, {
        token: operator.token,
        body: { percent: '0', fixed: '3.5', minimum: '0', reason: 'P2P schedule' },
      });
      expect(fee.status).toBe(200);
      const delay = await http('PUT', `${ops}/settlement`, {
        token: operator.token,
        body: { settlementDelaySeconds: 0, reason: 'Settles at once' },
      });
      expect(delay.status).toBe(200);
      // A P2P fee of 3.50 USD with nothing available: owed (decision 345).
      const p2pId = randomUUID();
      await publish(
        producer,
        Topics.p2pEvents,
        p2pId,
        envelope({
          type: 'p2p.status_changed',
          occurredAt: new Date(),
          payload: {
            p2pId,
            shopId: owing.shopId,
            merchantP2pId: `p-${p2pId.slice(0, 8)}`,
            sequence: 3,
            status: 'completed',
            previousStatus: 'in_progress',
            cost: { amount: '200.00', currency: 'USD' },
          },
        }),
      );
      const balance = async () =>
        (await http('GET', `${ops}/balance`, { token: operator.token })).body.balances as {
          currency: string;
          available: string;
          owed: string;
        }[];
      await eventually(async () => ((await balance())[0]?.owed === '3.5' ? true : undefined), 30_000, 'owed');
      // A card order of 100.00 USD settles at once: 3.50 repays the debt first (decision 348), 96.50 is available.
      const orderId = randomUUID();
      await publish(producer, Topics.ordersEvents, orderId, orderStatusChange(owing.shopId, orderId));
      await eventually(async () => ((await balance())[0]?.available === '96.5' ? true : undefined), 30_000, 'settled');

      const page = await signedIn(operator.token);
      await page.goto(url(`/shops/${owing.shopId}/books`));
      expect(await text(page, '#balances tr[data-currency="USD"]')).toMatch(/USD\s+96\.50\s+0\.00\s+0\.00\s+0\.00/);
      const settlement = '#transactions tr[data-kind="settlement"]';
      expect(await text(page, settlement)).toMatch(/Settlement[\s\S]+100\.00 USD\s+repaid debt 3\.50 USD/);
      // Its source is how many credits it moved (decision 351), not an id that links nowhere.
      expect(await text(page, `${settlement} [data-credits]`)).toBe('1 credit');
      expect(
        await page.evaluate(
          `getComputedStyle(document.querySelector('#transactions tr[data-kind="settlement"] [data-repaid]')).textAlign`,
        ),
      ).toBe('right');
      // Nothing was owed when the order was credited, nor is a P2P fee a repayment: those rows say nothing.
      for (const kind of ['order_completed', 'p2p_fee'])
        expect(await text(page, `#transactions tr[data-kind="${kind}"]`)).not.toContain('repaid');
      await saveScreenshot(page, 'console-books-repaid');
      await page.setViewport({ width: 390, height: 844, isMobile: true });
      await page.reload();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      expect(await text(page, settlement)).toContain('repaid debt 3.50 USD');
      await saveScreenshot(page, 'console-books-repaid-phone');
      await page.close();
    } finally {
      await producer.disconnect();
    }
  });

  it('when a credit is parked in suspense and a P2P fee is owed, then the books show both; an admin releases the credit with a reason and it converts', async () => {
    const other = await aShop(stack.gateway!.url, 'Suspense Shop');
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const producer = testKafka('console-books').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      const fee = await http('PUT', `${stack.backoffice!.url}/ops/v1/shops/${other.shopId}/fees/p2p/EUR`, {
        token: operator.token,
        body: { percent: '0', fixed: '1.5', minimum: '0', reason: 'P2P schedule' },
      });
      expect(fee.status).toBe(200);
      // A P2P fee of 1.50 EUR the shop has no EUR to pay: owed. A CHF order to a USDC-TRC20 balance, no rate: waiting.
      const [p2pId, orderId] = [randomUUID(), randomUUID()];
      const p2p = envelope({
        type: 'p2p.status_changed',
        occurredAt: new Date(),
        payload: {
          p2pId,
          shopId: other.shopId,
          merchantP2pId: `p-${p2pId.slice(0, 8)}`,
          sequence: 3,
          status: 'completed',
          previousStatus: 'in_progress',
          cost: { amount: '50.00', currency: 'EUR' },
        },
      });
      const order = orderStatusChange(other.shopId, orderId, {
        cost: { amount: '100.00', currency: 'CHF' },
        merchantBalance: { currency: 'USDC', tokenStandard: 'TRC20' },
      });
      await publish(producer, Topics.p2pEvents, p2pId, p2p);
      await publish(producer, Topics.ordersEvents, orderId, order);
      const waiting = async () =>
        (await db.query(`SELECT transaction_id, parked FROM ledger.awaiting_rates WHERE order_id = $1`, [orderId]))
          .rows[0];
      const credit: string = (await eventually(waiting, 30_000)).transaction_id;
      // Its conversion fails (a balance currency the registry does not know): the sweep parks it.
      const unknown = `NOPE${Date.now()}`;
      await db.query(`UPDATE ledger.awaiting_rates SET balance_currency = $2 WHERE order_id = $1`, [orderId, unknown]);
      await db.query(
        `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('CHF', $1, '1.08', 'operator:e2e', now() - interval '1 minute')`,
        [unknown],
      );
      await eventually(async () => ((await waiting())?.parked ? true : undefined), 20_000);

      const first = await signedIn(admin.token);
      await first.goto(url(`/shops/${other.shopId}/books`));
      expect(await text(first, '#balances tr[data-currency="EUR"]')).toMatch(/EUR\s+0\.00\s+0\.00\s+0\.00\s+1\.50/);
      expect(await first.$eval('#balances td[data-owed]', (e) => e.className)).toContain('bad');
      const parkedRow = `#awaiting tr[data-credit="${credit}"]`;
      expect(await text(first, parkedRow)).toMatch(/100\.00 CHF\s+NOPE\d+\s+Parked since .+\s+conversion failed: /);
      expect(await first.$(`${parkedRow} form[data-api="/ops/v1/awaiting-credits/${credit}/release"]`)).not.toBeNull();
      await saveScreenshot(first, 'console-books-parked');
      await first.setViewport({ width: 390, height: 844, isMobile: true });
      await first.reload();
      expect(await first.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // On a phone each balance is a block: what the shop owes is on screen, not scrolled away.
      const owedRight = (await first.evaluate(
        `document.querySelector('#balances td[data-owed]').getBoundingClientRect().right`,
      )) as number;
      expect(owedRight).toBeLessThanOrEqual(390);
      const releaseRight = (await first.evaluate(
        `document.querySelector('#awaiting form button').getBoundingClientRect().right`,
      )) as number;
      expect(releaseRight).toBeLessThanOrEqual(390);
      await saveScreenshot(first, 'console-books-parked-phone');
      await first.setViewport({ width: 1280, height: 900 });
      // Every shop's waiting credits are on the Books page too, each linked to its shop's books.
      await first.click('nav a[href="/ops/console/books"]');
      await first.waitForSelector('#awaiting');
      expect(await first.$(`#awaiting a[href="/ops/console/shops/${other.shopId}/books"]`)).not.toBeNull();
      await saveScreenshot(first, 'console-books-awaiting');
      await first.close();

      // An operator sees it without the release (the browser's session is then the operator's); the API
      // refuses an operator and a blank reason.
      const dana = await signedIn(operator.token);
      await dana.goto(url(`/shops/${other.shopId}/books`));
      expect(await dana.$(`${parkedRow} form`)).toBeNull();
      expect(await text(dana, '#awaiting')).toContain('Only an admin can release a parked credit.');
      await dana.close();
      const releaseApi = `${stack.backoffice!.url}/ops/v1/awaiting-credits/${credit}/release`;
      const refused = await http('POST', releaseApi, { token: operator.token, body: { reason: 'Fixed' } });
      expect(refused.status).toBe(403);
      const blank = await http('POST', releaseApi, { token: admin.token, body: { reason: '  ' } });
      expect(blank.status).toBe(400);
      expect(blank.body.errors).toEqual([expect.objectContaining({ path: 'reason' })]);
      expect((await waiting()).parked).toMatch(/^conversion failed: /);

      // The cause fixed (its balance currency put right, a rate for it), an admin releases it from the page.
      await db.query(`UPDATE ledger.awaiting_rates SET balance_currency = 'USDC-TRC20' WHERE order_id = $1`, [orderId]);
      await db.query(
        `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('CHF', 'USDC-TRC20', '1.08', 'operator:e2e', now() - interval '1 minute')`,
      );
      const page = await signedIn(admin.token);
      await page.goto(url(`/shops/${other.shopId}/books`));
      await page.type(`${parkedRow} input[name="reason"]`, 'Balance currency corrected, ticket 5120');
      await Promise.all([page.waitForNavigation(), page.click(`${parkedRow} button[type="submit"]`)]);
      await eventually(async () => ((await waiting()) ? undefined : true), 20_000);
      await page.reload();
      expect(await page.$('#awaiting')).toBeNull();
      expect(await text(page, '#balances tr[data-currency="USDC-TRC20"]')).toMatch(
        /USDC-TRC20\s+0\.000000\s+108\.000000\s+0\.000000\s+0\.000000/,
      );
      expect(await text(page, '#transactions tr[data-kind="suspense_converted"]')).toMatch(
        /Converted from suspense[\s\S]+100\.00 CHF[\s\S]+108\.000000 USDC-TRC20\s+1\.08/,
      );
      await saveScreenshot(page, 'console-books-released');
      await page.setViewport({ width: 390, height: 844, isMobile: true });
      await page.reload();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await saveScreenshot(page, 'console-books-released-phone');
      await page.close();

      const audit = await http('GET', `${stack.backoffice!.url}/ops/v1/audit?action=ledger.credit.release`, {
        token: TEST_OPS_TOKEN,
      });
      expect(audit.body.items).toEqual([
        expect.objectContaining({
          operator: expect.objectContaining({ name: 'Ada Admin' }),
          object: { type: 'credit', id: credit },
          reason: 'Balance currency corrected, ticket 5120',
          before: expect.objectContaining({ creditId: credit, status: 'parked' }),
          after: expect.objectContaining({ released: true, wasParked: expect.stringMatching(/^conversion failed: /) }),
        }),
      ]);
    } finally {
      await producer.disconnect();
      await db.end();
    }
  });
});
