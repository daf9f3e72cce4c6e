import { randomUUID } from 'node:crypto';
import { Admin, Consumer, Producer } from 'kafkajs';
import { loadPayoutsConfig, startPayouts } from '@payments/apps/payouts';
import { envelope } from '@payments/contracts';
import { createTopicsAndWait } from '@payments/messaging';
import { eventually, http, testKafka, uniqueName } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { scrape, valuesOf } from '../support/metrics';
import { TestStack } from '../support/stack';

/**
 * Issue 27: a requester's reply topic deleted (every rollout deleted the one of each gateway and
 * checkout instance that stopped) wedged the producer of every service that had answered on it:
 * kafkajs refreshes metadata for every topic a producer ever sent to, the deleted one fails the
 * refresh, and the producer retried without end — at once for the next send to a new topic,
 * else at the next metadata refresh. These tests drive the services only from outside: HTTP
 * through the gateway, and requests written to `payouts.commands` as a requester would.
 */
describe('replies when a requester is gone (a deleted or vanished reply topic)', () => {
  let stack: TestStack;
  let shop: TestShop;
  let admin: Admin;
  let producer: Producer;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'payouts', 'methods'],
      // Past a metadata refresh within the test (kafkajs's default is 5 minutes).
      extraEnv: { KAFKA_METADATA_MAX_AGE_MS: '2000', KAFKA_REPLY_SEND_TIMEOUT_MS: '3000' },
    });
    shop = await aShop(stack.gateway!.url, 'Reply Topics Shop');
    const kafka = testKafka('reply-topics-spec');
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
  });

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await producer?.disconnect();
    await admin?.disconnect();
    await stack?.stop();
  });

  /** A read the payouts service answers over Kafka: an unknown payout is 404, a wedged one 503. */
  const readThroughGateway = () =>
    http('GET', `${stack.gateway!.url}/payouts/${randomUUID()}`, { token: shop.apiKey }).then((r) => r.status);

  /** payouts answers the gateway, and keeps answering for a few seconds (past a metadata refresh). */
  async function payoutsKeepsAnswering(): Promise<void> {
    for (let i = 0; i < 6; i++) {
      expect(await readThroughGateway()).toBe(404);
      await new Promise((r) => setTimeout(r, 700));
    }
  }

  /**
   * Asks payouts as the requester reading `replyTopic` would, on that requester's path (decision
   * 263): checkout's reply topic is the payers' (`payout.get_for_checkout` on payouts.payer-commands),
   * any other the merchants' (`payout.get` on payouts.commands). Either answers an unknown payout.
   */
  async function askPayouts(replyTopic: string, headers: Record<string, string> = {}): Promise<string> {
    const payer = replyTopic.endsWith('checkout.replies');
    const request = envelope({
      type: payer ? 'payout.get_for_checkout' : 'payout.get',
      payload: payer
        ? { payoutId: randomUUID(), linkHash: 'a'.repeat(64) }
        : { payoutId: randomUUID(), shopId: shop.shopId },
      occurredAt: new Date(),
    });
    await producer.send({
      topic: `${stack.prefix}${payer ? 'payouts.payer-commands' : 'payouts.commands'}`,
      messages: [
        { key: request.eventId, value: JSON.stringify(request), headers: { 'reply-topic': replyTopic, ...headers } },
      ],
    });
    return request.eventId;
  }

  /** Resolves with the reply to `eventId` once it is on `topic`. */
  async function replyOn(topic: string, eventId: string): Promise<void> {
    const consumer = testKafka('reply-topics-reader').consumer({
      groupId: uniqueName('reply-reader'),
      maxWaitTimeInMs: 100,
    });
    consumers.push(consumer);
    const seen = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const id = message.headers?.['correlation-id']?.toString();
        if (id) seen.add(id);
      },
    });
    await eventually(async () => (seen.has(eventId) ? true : undefined), 20_000, `the reply to ${eventId} on ${topic}`);
    await consumer.disconnect();
  }

  async function ensureTopic(topic: string): Promise<void> {
    // A topic deleted a moment ago may still be going away on the broker, and one listed may have no
    // leader yet (a consumer subscribing then fails with "This server does not host this
    // topic-partition", as it did once in CI): created if missing, then until every partition has one.
    await createTopicsAndWait(admin, [{ topic, numPartitions: 1 }]);
  }

  async function dropped(reason: string): Promise<number> {
    const { series } = await scrape(`http://127.0.0.1:${stack.payouts!.port}`);
    return valuesOf(series, 'payments_replies_dropped_total', { reason }).reduce((sum, v) => sum + v, 0);
  }

  /** Commands payouts refused without handling them (decision 263), by reason. */
  async function refused(reason: string): Promise<number> {
    const { series } = await scrape(`http://127.0.0.1:${stack.payouts!.port}`);
    return valuesOf(series, 'payments_commands_refused_total', { reason }).reduce((sum, v) => sum + v, 0);
  }

  it('when a reply topic payouts answered on is deleted, then payouts still answers the next requester and keeps answering past a metadata refresh', async () => {
    const gone = `${stack.prefix}checkout.replies`;
    await ensureTopic(gone);
    await replyOn(gone, await askPayouts(gone));
    await admin.deleteTopics({ topics: [gone] });
    await eventually(async () => ((await admin.listTopics()).includes(gone) ? undefined : true), 20_000, 'deletion');

    // The first reply to another topic after the deletion: it wedged the producer at once.
    await payoutsKeepsAnswering();
    const ready = await http('GET', `http://127.0.0.1:${stack.payouts!.port}/health/ready`);
    expect(ready.status).toBe(200);
  });

  it('when a request names the deleted reply topic, then its reply is given up within the bound, counted, and nothing else waits for it', async () => {
    const before = (await dropped('send_failed')) + (await dropped('timeout'));
    await askPayouts(`${stack.prefix}checkout.replies`);
    await eventually(
      async () => ((await dropped('send_failed')) + (await dropped('timeout')) > before ? true : undefined),
      30_000,
      'the reply to the deleted topic dropped',
    );
    await payoutsKeepsAnswering();
  });

  it("when a request names a reply topic that is not a requester's (a vanished instance's topic of an earlier version), then its reply is dropped at once and payouts keeps answering", async () => {
    // Since decision 263 the audience guard drops it before the handler: not the merchants' reply topic.
    const before = await refused('wrong_reply_topic');
    await askPayouts(`${stack.prefix}gateway.replies.${uniqueName('vanished')}`);
    await eventually(
      async () => ((await refused('wrong_reply_topic')) > before ? true : undefined),
      20_000,
      'the drop',
    );
    await payoutsKeepsAnswering();
  });

  it('when a request comes after its requester stopped waiting (reply-by passed), then its reply is not sent, and counted', async () => {
    const before = await dropped('expired');
    await askPayouts(`${stack.prefix}gateway.replies`, { 'reply-by': String(Date.now() - 1000) });
    await eventually(async () => ((await dropped('expired')) > before ? true : undefined), 20_000, 'the drop');
    await payoutsKeepsAnswering();
  });

  it('when payouts restarts with such a request still unanswered, then the restarted service answers the gateway', async () => {
    await stack.payouts!.close();
    await askPayouts(`${stack.prefix}gateway.replies.${uniqueName('vanished')}`);
    await askPayouts(`${stack.prefix}checkout.replies`);
    stack.payouts = await startPayouts(loadPayoutsConfig(stack.env({ KAFKA_METADATA_MAX_AGE_MS: '2000' })), 0);
    await payoutsKeepsAnswering();
  });

  it('when the deleted reply topic is created again, then replies to it go out again', async () => {
    const back = `${stack.prefix}checkout.replies`;
    await ensureTopic(back);
    await replyOn(back, await askPayouts(back));
  });
});
