import { randomUUID } from 'node:crypto';
import { Producer } from 'kafkajs';
import { Client } from 'pg';
import { loadBackofficeConfig, startBackoffice } from '@payments/apps/backoffice';
import { envelope, Topics } from '@payments/contracts';
import { eventually, http, testKafka } from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, anOrderRequest } from '../support/merchant';
import { lintMetrics, scrape, valueOf, valuesOf } from '../support/metrics';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * /metrics on the real services, the real broker and database: consumer lag read by the backoffice's
 * elected collector while a consumer is down, dead-letter depth, and Prometheus' own linter over
 * every service's answer.
 */
describe('metrics', () => {
  let stack: TestStack;
  let producer: Producer;
  const gatewayMetrics = () => scrape(stack.gateway!.url);
  /** The Kafka collector (lag, dead letters) runs in the backoffice. */
  const collectorMetrics = () => scrape(stack.backoffice!.url);

  beforeAll(async () => {
    // Offsets read every 300 ms instead of 5 s, so a test sees them move quickly.
    stack = await TestStack.start({ extraEnv: { KAFKA_METRICS_INTERVAL_MS: '300' } });
    producer = testKafka('metrics-test').producer();
    await producer.connect();
  }, 180_000);

  afterAll(async () => {
    await producer?.disconnect();
    await stack?.stop();
  });

  /** Messages no service has a handler for: the consumer dead-letters each at once and commits past it. */
  async function sendUnhandled(topic: string, count: number): Promise<void> {
    await producer.send({
      topic: stack.prefix + topic,
      acks: -1,
      messages: Array.from({ length: count }, () => ({
        key: randomUUID(),
        value: JSON.stringify(
          envelope({
            type: 'metrics-test.unhandled',
            payload: {},
            occurredAt: new Date(),
            correlationId: randomUUID(),
          }),
        ),
      })),
    });
  }

  const lagOf = async (group: string, topic: string) =>
    valueOf((await collectorMetrics()).series, 'kafka_consumergroup_lag_sum', { consumergroup: group, topic });

  it('when the orders service is stopped while commands arrive, then its lag rises, and after it starts again the lag returns to 0', async () => {
    // A first message gives the group a committed offset on the topic, from which lag is measured.
    await sendUnhandled(Topics.ordersCommands, 1);
    await eventually(async () => ((await lagOf('orders', Topics.ordersCommands)) === 0 ? true : undefined), 30_000);

    const stopped = stack.orders!.shift()!;
    await stopped.close();
    await sendUnhandled(Topics.ordersCommands, 5);
    await eventually(async () => ((await lagOf('orders', Topics.ordersCommands)) === 5 ? true : undefined), 30_000);
    const whileStopped = (await collectorMetrics()).series;
    const perPartition = valuesOf(whileStopped, 'kafka_consumergroup_lag', {
      consumergroup: 'orders',
      topic: Topics.ordersCommands,
    });
    expect(perPartition.reduce((a, b) => a + b, 0)).toBe(5);
    // The oldest unprocessed message keeps ageing while nobody reads it.
    await eventually(
      async () => {
        const ages = valuesOf((await collectorMetrics()).series, 'kafka_consumergroup_lag_seconds', {
          consumergroup: 'orders',
          topic: Topics.ordersCommands,
        });
        return Math.max(...ages) >= 1 ? true : undefined;
      },
      15_000,
      'the time lag to reach 1 s',
    );

    await stack.startOrders();
    await eventually(async () => ((await lagOf('orders', Topics.ordersCommands)) === 0 ? true : undefined), 30_000);
    const after = (await collectorMetrics()).series;
    expect(
      valuesOf(after, 'kafka_consumergroup_lag_seconds', { consumergroup: 'orders', topic: Topics.ordersCommands }),
    ).toEqual(expect.arrayContaining([0]));
    expect(
      Math.max(
        ...valuesOf(after, 'kafka_consumergroup_lag_seconds', {
          consumergroup: 'orders',
          topic: Topics.ordersCommands,
        }),
      ),
    ).toBe(0);
  }, 120_000);

  it('when a message is forced into a dead-letter topic, then the depth gauge of that topic counts it', async () => {
    const dlq = `${Topics.methodsQueries}.dlq`;
    const depth = async () =>
      valueOf((await collectorMetrics()).series, 'payments_dead_letter_messages', { topic: dlq });
    const before = await eventually(depth, 15_000, `a depth for ${dlq}`);
    // Written to the dead-letter topic itself: since decision 263 a command topic's consumer drops a
    // type no audience may send instead of dead-lettering it.
    await sendUnhandled(dlq, 1);
    await eventually(async () => ((await depth()) === before + 1 ? true : undefined), 30_000, `${dlq} depth +1`);
  }, 60_000);

  it('when a route with an id in its path is called, then the duration histogram is labelled by its template, never by the id', async () => {
    const orderId = randomUUID();
    const res = await http('GET', `${stack.gateway!.url}/order/${orderId}`);
    expect(res.status).toBe(401);
    const { text, series } = await gatewayMetrics();
    expect(
      valueOf(series, 'http_server_request_duration_seconds_count', {
        method: 'GET',
        route: '/order/:orderId',
        status_code: '401',
      }),
    ).toBe(1);
    expect(text).not.toContain(orderId);
  });

  it('when a merchant creates an order, retries it with its Idempotency-Key and the sandbox pays it, then each step is counted, with no id, key or amount in a label', async () => {
    const receiver = await CallbackReceiver.start();
    try {
      const shop = await aShop(stack.gateway!.url, 'Metrics Shop');
      const settings = await http('PATCH', `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${shop.shopId}/settings`, {
        token: TEST_OPS_TOKEN,
        body: { callbackUrl: receiver.url },
      });
      expect(settings.status).toBe(200);
      const request = anOrderRequest({ amount: '100.00' });
      const headers = { 'idempotency-key': `metrics-${randomUUID()}` };
      const created = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: request, headers });
      expect(created.status).toBe(201);
      const replayed = await http('POST', `${stack.gateway!.url}/order`, {
        token: shop.apiKey,
        body: request,
        headers,
      });
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const orderId: string = created.body.id;
      await eventually(
        async () => {
          const order = await http('GET', `${stack.gateway!.url}/order/${orderId}`, { token: shop.apiKey });
          return order.body?.status === 'completed' ? true : undefined;
        },
        30_000,
        'the order to be completed',
      );

      const { text, series } = await eventually(
        async () => {
          const m = await gatewayMetrics();
          const delivered = valueOf(m.series, 'payments_merchant_callback_attempts_total', { result: 'delivered' });
          // Counted when the relay publishes the change, which may come a moment after the order reads completed.
          const completed = valuesOf(m.series, 'payments_status_transitions_total', {
            entity: 'order',
            status: 'completed',
          });
          return (delivered ?? 0) >= 1 && completed.length > 0 ? m : undefined;
        },
        30_000,
        'a delivered merchant callback and the completion to be counted',
      );
      expect(
        valueOf(series, 'payments_request_reply_duration_seconds_count', { topic: Topics.ordersCommands }),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(series, 'payments_idempotency_replays_total')).toBe(1);
      expect(
        valueOf(series, 'payments_status_transitions_total', {
          entity: 'order',
          status: 'completed',
          status_code: '0-01-00',
        }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        valueOf(series, 'payments_provider_callbacks_total', { provider: 'sandbox', result: 'accepted' }),
      ).toBeGreaterThanOrEqual(1);
      for (const secret of [orderId, shop.apiKey, shop.shopId, '100.00']) expect(text).not.toContain(secret);
    } finally {
      await receiver.stop();
    }
  }, 90_000);

  it('when two backoffices run, then one collector holds the lock and exports, and when it stops the other takes over', async () => {
    // Both backoffices run in this process and share its registry, so the election is read where it
    // happens: the sessions holding the collectors' advisory lock.
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const holders = async () =>
      (
        await db.query<{ pid: number }>(
          `SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'kafka-metrics'
              AND a.datname = current_database()`,
        )
      ).rows.map((r) => r.pid);
    const exporting = async (url: string) =>
      valuesOf((await scrape(url)).series, 'kafka_topic_partition_current_offset').length > 0;
    const second = await startBackoffice(loadBackofficeConfig(stack.env({ KAFKA_METRICS_INTERVAL_MS: '300' })), 0);
    try {
      // Several refreshes of both: the first holds the lock, the second keeps trying and exports nothing.
      await new Promise((r) => setTimeout(r, 1500));
      const [first] = await holders();
      expect(await holders()).toEqual([first]);
      expect(await exporting(second.url)).toBe(true);

      await stack.backoffice!.close();
      stack.backoffice = second;
      await eventually(
        async () => {
          const now = await holders();
          return now.length === 1 && now[0] !== first && (await exporting(second.url)) ? true : undefined;
        },
        15_000,
        'the second backoffice to take over',
      );
    } finally {
      if (stack.backoffice !== second) await second.close();
      await db.end();
    }
  }, 60_000);

  it('when every service is scraped, then each answer is Prometheus text that promtool check metrics accepts', async () => {
    const services = {
      gateway: stack.gateway!.url,
      backoffice: stack.backoffice!.url,
      'callbacks-ingest': stack.ingest!.url,
      'provider-sandbox': stack.sandbox!.url,
      orders: `http://127.0.0.1:${stack.orders![0].port}`,
      methods: `http://127.0.0.1:${stack.methods!.port}`,
      'merchant-callbacks': `http://127.0.0.1:${stack.merchantCallbacks!.port}`,
      payouts: `http://127.0.0.1:${stack.payouts!.port}`,
      p2p: `http://127.0.0.1:${stack.p2p!.port}`,
    };
    for (const [service, url] of Object.entries(services)) {
      const { text, contentType, series } = await scrape(url);
      expect({ service, contentType }).toEqual({ service, contentType: expect.stringMatching(/^text\/plain/) });
      // Process metrics (CPU, memory, event loop, GC) are part of every answer.
      expect(valueOf(series, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(valuesOf(series, 'nodejs_eventloop_lag_seconds').length).toBe(1);
      expect({ service, ...lintMetrics(text) }).toEqual({ service, parsed: true, findings: [] });
    }
  });
});
