import { Client } from 'pg';
import { RunningOrders } from '@payments/apps/orders';
import type { Browser } from 'puppeteer-core';
import { eventually, http, launchBrowser, saveScreenshot, testKafka } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { scrape, valueOf } from '../support/metrics';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * /health/ready and /health/live of a service (issue 27): each condition forced for real — the
 * database cut off, the consumer out of its group (its handler waits on a row lock past the session
 * timeout), the producer wedged (its topic deleted under it) — and the probes seen to change and
 * change back. Bounds are short here (HEALTH_STALL_MS 3 s, HEALTH_LIVENESS_GRACE_MS 6 s); how long
 * each change took is printed, never asserted.
 */
describe('health: readiness and liveness follow what the service can do', () => {
  let stack: TestStack;
  let orders: RunningOrders;
  let proxy: TcpProxy;
  let shop: TestShop;
  const HEALTH_ENV = {
    HEALTH_STALL_MS: '3000',
    HEALTH_LIVENESS_GRACE_MS: '6000',
    KAFKA_METADATA_MAX_AGE_MS: '2000',
    HEALTH_REPORT_INTERVAL_MS: '500',
  };
  let browser: Browser;
  let operatorToken: string;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway'], extraEnv: HEALTH_ENV });
    const db = new URL(stack.databaseUrl);
    proxy = await TcpProxy.start(db.hostname, Number(db.port || 5432));
    orders = await stack.startOrders({ DATABASE_URL: proxy.url(stack.databaseUrl) });
    shop = await aShop(stack.gateway!.url, 'Health Shop');
    const operator = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
      token: TEST_OPS_TOKEN,
      body: { name: 'Hana Health', role: 'viewer' },
    });
    expect(operator.status).toBe(201);
    operatorToken = operator.body.token;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    proxy?.up();
    await stack?.stop();
    await proxy?.close();
  });

  const probe = async (which: 'ready' | 'live') => {
    const res = await http('GET', `http://127.0.0.1:${orders.port}/health/${which}`);
    return {
      status: res.status,
      body: res.body as { status: string | number; health?: string; error?: Record<string, { detail: string }> },
    };
  };

  /** Waits until the probe answers `status`, printing how long it took. */
  async function until(which: 'ready' | 'live', status: number, what: string) {
    const started = Date.now();
    const answer = await eventually(
      async () => {
        const p = await probe(which);
        return p.status === status ? p : undefined;
      },
      45_000,
      `/health/${which} ${status} (${what})`,
    );
    console.log(`/health/${which} turned ${status} ${((Date.now() - started) / 1000).toFixed(1)} s after: ${what}`);
    return answer;
  }

  it('when the service runs, then it is ready and live, each component listed', async () => {
    const ready = await until('ready', 200, 'start');
    expect(ready.body.status).toBe('ok');
    const details = (ready.body as unknown as { details: Record<string, { status: string }> }).details;
    expect(Object.keys(details).sort()).toEqual(
      expect.arrayContaining([
        'database',
        'kafka-consumer',
        'kafka-producer:dead-letters',
        'kafka-producer:outbox',
        'kafka-producer:gateway.replies',
        'kafka-producer:checkout.replies',
      ]),
    );
    expect((await probe('live')).status).toBe(200);
    // The old path answers what ready answers.
    expect((await http('GET', `http://127.0.0.1:${orders.port}/health`)).status).toBe(200);
  });

  /** The orders instance's row of the overview's services, once it is in `state`. */
  const overviewShows = (state: string) =>
    eventually(
      async () => {
        const res = await http('GET', `${stack.backoffice!.url}/ops/v1/overview`, { token: TEST_OPS_TOKEN });
        const services = res.body.services as {
          service: string;
          instanceId: string;
          state: string;
          problems: { component: string }[];
        }[];
        return services.find((s) => s.service === 'orders' && s.state === state);
      },
      30_000,
      `orders ${state} on the overview`,
    );

  it('when its database is cut off, then it is not ready (naming the database) but live, and the console says so; when it is back, then ready again', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${stack.backoffice!.url}/ops/console/sign-in`);
    await page.type('#token', operatorToken);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect((await overviewShows('ready')).problems).toEqual([]);
    proxy.down();
    try {
      const down = await until('ready', 503, 'the database cut off');
      expect(Object.keys(down.body.error ?? {})).toContain('database');
      expect(down.body.health).toBe('error');
      expect((await probe('live')).status).toBe(200);
      const { series } = await scrape(`http://127.0.0.1:${orders.port}`);
      expect(valueOf(series, 'payments_component_ready', { component: 'database' })).toBe(0);
      const row = await overviewShows('not_ready');
      expect(row.problems.map((p) => p.component)).toContain('database');
      // The console's overview refreshes itself every 5 s.
      await page.waitForSelector('tr[data-service="orders"][data-state="not_ready"]', { timeout: 20_000 });
      const text = await page.$eval('tr[data-service="orders"][data-state="not_ready"]', (tr) => tr.textContent ?? '');
      expect(text).toContain('Not ready');
      expect(text).toContain('database: does not answer');
      await saveScreenshot(page, 'console-overview-service-not-ready');
    } finally {
      proxy.up();
    }
    await until('ready', 200, 'the database back');
    await overviewShows('ready');
    await page.waitForSelector('tr[data-service="orders"][data-state="ready"]', { timeout: 20_000 });
    await page.close();
  });

  it('when its consumer is out of its group (a handler waits on a lock past the session timeout), then it is not ready, and past the grace not live (a fresh client would get through); once the lock goes, then both recover', async () => {
    const created = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: anOrderRequest() });
    expect(created.status).toBe(201);
    const locker = new Client({ connectionString: stack.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM orders.orders WHERE id = $1 FOR UPDATE', [created.body.id]);
      // The cancel waits for the lock inside the consumer's handler: no heartbeat, no fetch.
      const cancel = http('POST', `${stack.gateway!.url}/order/cancel`, {
        token: shop.apiKey,
        body: { orderId: created.body.id },
      });
      const down = await until('ready', 503, 'a handler blocked on a row lock');
      expect(down.body.error?.['kafka-consumer']?.detail).toMatch(
        /^no heartbeat or fetch of group .*orders for \d+ s$/,
      );
      const notLive = await until('live', 503, 'the liveness grace passed, the broker and its topics fine');
      expect(Object.keys(notLive.body.error ?? {})).toEqual(['kafka-consumer']);
      await cancel;
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    await until('ready', 200, 'the lock released');
    await until('live', 200, 'the lock released');
  });

  it('when the topic its outbox publishes to is deleted, then it is not ready but stays live (a restart would not bring the topic back); once the topic is back, then ready', async () => {
    const admin = testKafka('health-spec').admin();
    await admin.connect();
    const topic = `${stack.prefix}orders.events`;
    try {
      await admin.deleteTopics({ topics: [topic] });
      await eventually(async () => ((await admin.listTopics()).includes(topic) ? undefined : true), 20_000, 'deletion');
      // An order's event now waits in the outbox, its send retried without end.
      const created = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: anOrderRequest() });
      expect(created.status).toBe(201);
      const notReady = await until('ready', 503, `${topic} deleted under the outbox relay`);
      expect(Object.keys(notReady.body.error ?? {})).toContain('kafka-producer:outbox');
      // Past the grace (6 s) the fresh client finds the topic missing: liveness holds.
      await new Promise((r) => setTimeout(r, 9000));
      const live = await probe('live');
      expect(live.status).toBe(200);
      expect(live.body.status).toBe('degraded');
    } finally {
      await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true }).catch(() => undefined);
      await admin.disconnect();
    }
    await until('ready', 200, 'the topic created again');
    expect((await probe('live')).status).toBe(200);
  });

  it('when an instance stops, then it leaves the overview (its last report is a tombstone)', async () => {
    const second = await stack.startOrders();
    const instances = async () => {
      const res = await http('GET', `${stack.backoffice!.url}/ops/v1/overview`, { token: TEST_OPS_TOKEN });
      return (res.body.services as { service: string }[]).filter((s) => s.service === 'orders').length;
    };
    await eventually(async () => ((await instances()) === 2 ? true : undefined), 30_000, 'two orders instances');
    stack.orders!.splice(stack.orders!.indexOf(second), 1);
    await second.close();
    await eventually(async () => ((await instances()) === 1 ? true : undefined), 30_000, 'one orders instance');
  });
});
