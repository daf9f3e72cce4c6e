import { DynamicModule, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { Partitioners, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import { dlqTopic, envelope, Envelope, Topics } from '@payments/contracts';
import { Inbox, KafkaTransport, RethrowRpcErrors } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import {
  createTestDatabase,
  createTestTopics,
  eventually,
  testBrokers,
  testKafka,
  TopicReader,
  uniqueName,
} from '@payments/testing';
import { MerchantCallbacksConfig } from '../config';
import { DeliveryRepository, NewDelivery } from '../deliver/delivery.repository';
import { CLOCK, MERCHANT_CALLBACKS_CONFIG, MERCHANT_CALLBACKS_INBOX, systemClock } from '../tokens';
import { StatusChangeConsumer } from './status-change.consumer';
import { MERCHANT_CALLBACKS_MIGRATIONS } from '../migrations';

const SCHEMA = 'merchant_callbacks';
const GROUP = 'status-change-spec';

/** The consumer alone, on the real transport: no delivery worker, so what it recorded stays as it left it. */
@Module({})
class ConsumerOnly {
  static register(ds: DataSource): DynamicModule {
    return {
      module: ConsumerOnly,
      controllers: [StatusChangeConsumer],
      providers: [
        { provide: DataSource, useValue: ds },
        DeliveryRepository,
        { provide: MERCHANT_CALLBACKS_CONFIG, useValue: { schema: SCHEMA } as MerchantCallbacksConfig },
        { provide: CLOCK, useValue: systemClock },
        { provide: MERCHANT_CALLBACKS_INBOX, useValue: new Inbox(ds, SCHEMA, GROUP) },
      ],
    };
  }
}

interface Recorded {
  event_id: string;
  object_type: string;
  object_id: string;
  shop_id: string;
  sequence: number;
  feed_position: string;
  position: string;
}

/**
 * The status-change consumer records a partition batch in one transaction (issue 13, decision
 * 233), against Kafka and PostgreSQL: one multi-row insert per batch, consecutive feed positions
 * per shop, one head per object, duplicates and redeliveries ignored, a malformed message
 * dead-lettered alone.
 */
describe('status changes: a partition batch recorded in one transaction', () => {
  const prefix = `${uniqueName('mcb')}.`;
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let topics: { deleteAll(): Promise<void> };
  let producer: Producer;
  let reader: TopicReader;
  let app: INestMicroservice;
  /** The deliveries each insertFresh call recorded, by event id, in the batch's order: one call per statement. */
  const calls: string[][] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: MERCHANT_CALLBACKS_MIGRATIONS,
    });
    topics = await createTestTopics(prefix);
    producer = testKafka('mcb-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    reader = await TopicReader.start([prefix + dlqTopic(Topics.ordersEvents)]);

    const transport = new KafkaTransport({
      kafka: { brokers: testBrokers(), clientId: 'status-change-spec', topicPrefix: prefix, replicationFactor: 1 },
      groupId: GROUP,
      topics: [Topics.ordersEvents, Topics.payoutsEvents, Topics.p2pEvents],
      retryBackoffMs: 50,
    });
    app = await NestFactory.createMicroservice(ConsumerOnly.register(ds), { strategy: transport, logger: false });
    app.useGlobalFilters(new RethrowRpcErrors());
    const repo = app.get(DeliveryRepository);
    const insertFresh = repo.insertFresh.bind(repo);
    jest.spyOn(repo, 'insertFresh').mockImplementation(async (d: readonly NewDelivery[], inbox, now) => {
      const recorded = await insertFresh(d, inbox, now);
      calls.push(d.map((x) => x.eventId).filter((id) => recorded.has(id.toLowerCase())));
      return recorded;
    });
    await app.listen();
    await transport.whenJoined();
  });

  afterAll(async () => {
    await app?.close();
    await reader?.stop();
    await producer?.disconnect();
    await topics?.deleteAll();
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  const orderChange = (shopId: string, orderId: string, sequence: number, extra: object = {}) =>
    envelope({
      type: 'order.status_changed',
      occurredAt: new Date(),
      payload: {
        orderId,
        shopId,
        merchantOrderId: `m-${orderId.slice(0, 8)}`,
        sequence,
        status: sequence === 1 ? 'registered' : 'in_progress',
        previousStatus: sequence === 1 ? null : 'registered',
        cost: { amount: '10.00', currency: 'USD' },
        ...extra,
      },
    });

  const transferChange = (type: 'payout' | 'p2p', shopId: string, id: string, sequence: number) =>
    envelope({
      type: `${type}.status_changed`,
      occurredAt: new Date(),
      payload: {
        [`${type}Id`]: id,
        shopId,
        [type === 'payout' ? 'merchantPayoutId' : 'merchantP2pId']: `m-${id.slice(0, 8)}`,
        sequence,
        status: sequence === 1 ? 'registered' : 'completed',
        previousStatus: sequence === 1 ? null : 'registered',
        cost: { amount: '5.00', currency: 'USD' },
      },
    });

  /** All in one produce request to partition 0: the consumer fetches them as one batch. */
  async function sendTogether(topic: string, events: Envelope[]): Promise<void> {
    await producer.send({
      topic: prefix + topic,
      acks: -1,
      messages: events.map((e) => ({ key: randomUUID(), value: JSON.stringify(e), partition: 0 })),
    });
  }

  const deliveries = async (eventIds: string[]): Promise<Recorded[]> =>
    ds.query(
      // Ordered by the column, not the text it is answered as ("10" sorts before "9").
      `SELECT d.event_id, d.object_type, d.object_id, d.shop_id, d.sequence, d.feed_position::text, d.position::text
         FROM ${SCHEMA}.deliveries d WHERE d.event_id = ANY($1::uuid[]) ORDER BY d.position`,
      [eventIds],
    );
  const until = (eventIds: string[], what: string) =>
    eventually(
      async () => {
        const rows = await deliveries(eventIds);
        return rows.length === eventIds.length ? rows : undefined;
      },
      30_000,
      what,
    );
  const heads = async (objectIds: string[]) =>
    (await ds.query(
      `SELECT h.object_id, d.sequence, h.sequence AS head_sequence, h.version::int
         FROM ${SCHEMA}.delivery_heads h JOIN ${SCHEMA}.deliveries d ON d.id = h.delivery_id
        WHERE h.object_id = ANY($1::uuid[]) ORDER BY h.object_id`,
      [objectIds],
    )) as { object_id: string; sequence: number; head_sequence: number; version: number }[];
  const feedHead = async (shopId: string) =>
    Number(
      (await ds.query(`SELECT last_position FROM ${SCHEMA}.feed_heads WHERE shop_id = $1`, [shopId]))[0]?.last_position,
    );
  const inboxed = async (eventIds: string[]) =>
    (
      (await ds.query(`SELECT event_id FROM ${SCHEMA}.inbox WHERE consumer = $1 AND event_id = ANY($2::uuid[])`, [
        GROUP,
        eventIds,
      ])) as { event_id: string }[]
    )
      .map((r) => r.event_id)
      .sort();

  it('when a batch holds several changes of one order, several shops, a duplicate and a malformed change, then each is recorded once in one insert, in feed order, and only the malformed one is dead-lettered', async () => {
    const [shopA, shopB] = [randomUUID(), randomUUID()];
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    const x1 = orderChange(shopA, x, 1);
    const x2 = orderChange(shopA, x, 2);
    const y1 = orderChange(shopB, y, 1);
    const x3 = orderChange(shopA, x, 3);
    const z1 = orderChange(shopB, z, 1);
    // No merchantOrderId: breaks the contract.
    const broken = orderChange(shopA, randomUUID(), 1);
    delete (broken.payload as { merchantOrderId?: string }).merchantOrderId;
    // The duplicate: the same envelope again, as a relay that published twice would send it; its
    // id in upper case, as the inbox compares ids whatever their case.
    const x2again = { ...x2, eventId: x2.eventId.toUpperCase() };
    await sendTogether(Topics.ordersEvents, [x1, x2, y1, broken, x2again, x3, z1]);

    const good = [x1, x2, y1, x3, z1].map((e) => e.eventId);
    const rows = await until(good, 'the good changes recorded');
    expect(rows.map((r) => [r.event_id, r.shop_id, r.object_id, r.sequence])).toEqual([
      [x1.eventId, shopA, x, 1],
      [x2.eventId, shopA, x, 2],
      [y1.eventId, shopB, y, 1],
      [x3.eventId, shopA, x, 3],
      [z1.eventId, shopB, z, 1],
    ]);
    // Each shop's new deliveries take consecutive feed positions in the order consumed.
    expect(rows.map((r) => Number(r.feed_position))).toEqual([1, 2, 1, 3, 2]);
    expect([await feedHead(shopA), await feedHead(shopB)]).toEqual([3, 2]);
    // One head per object: its lowest sequence.
    expect(new Map((await heads([x, y, z])).map((h) => [h.object_id, h.sequence]))).toEqual(
      new Map([
        [x, 1],
        [y, 1],
        [z, 1],
      ]),
    );
    expect(await inboxed([...good, broken.eventId])).toEqual([...good].sort());

    // The malformed one was named: dead-lettered at once, its neighbours recorded in one insert.
    const [letter] = await reader.waitFor(1, (m) => m.json?.eventId === broken.eventId, 20_000);
    expect(letter.headers).toMatchObject({ 'dlq-attempts': '1', 'dlq-consumer-group': GROUP });
    expect(letter.headers['dlq-error']).toContain('merchantOrderId');
    expect(calls.filter((c) => c.includes(x1.eventId))).toEqual([good]);
  });

  it('when a recorded batch is delivered again with a new change, then only the new one is recorded, and a head moves only for an earlier sequence', async () => {
    const shop = randomUUID();
    const [x, w] = [randomUUID(), randomUUID()];
    const first = [orderChange(shop, x, 1), orderChange(shop, x, 2), orderChange(shop, w, 2)];
    await sendTogether(Topics.ordersEvents, first);
    await until(
      first.map((e) => e.eventId),
      'the first batch recorded',
    );
    const [xBefore, wBefore] = await heads([x, w]).then((hs) => [x, w].map((o) => hs.find((h) => h.object_id === o)!));
    expect([xBefore.sequence, wBefore.sequence]).toEqual([1, 2]);

    // Redelivered whole (a rebalance before the offset was committed), with w's sequence 1 (it
    // comes first: it becomes w's head) and x's sequence 3 (it does not) behind it.
    const x3 = orderChange(shop, x, 3);
    const w1 = orderChange(shop, w, 1);
    await sendTogether(Topics.ordersEvents, [...first, x3, w1]);
    const rows = await until(
      [...first, x3, w1].map((e) => e.eventId),
      'the new changes recorded',
    );
    expect(rows.map((r) => [r.object_id, r.sequence, Number(r.feed_position)])).toEqual([
      [x, 1, 1],
      [x, 2, 2],
      [w, 2, 3],
      [x, 3, 4],
      [w, 1, 5],
    ]);
    expect(await feedHead(shop)).toBe(5);
    expect(calls.filter((c) => c.includes(x3.eventId))).toEqual([[x3.eventId, w1.eventId]]);

    const [xAfter, wAfter] = await heads([x, w]).then((hs) => [x, w].map((o) => hs.find((h) => h.object_id === o)!));
    // Each head's version bumped once by the batch, whether the head moved or not.
    expect([xAfter.sequence, xAfter.version]).toEqual([1, xBefore.version + 1]);
    expect([wAfter.sequence, wAfter.version]).toEqual([1, wBefore.version + 1]);
  });

  it('when payout and P2P changes arrive in batches, then each is recorded the same way under its own type', async () => {
    const shop = randomUUID();
    const [p, q, t] = [randomUUID(), randomUUID(), randomUUID()];
    const payouts = [
      transferChange('payout', shop, p, 1),
      transferChange('payout', shop, q, 1),
      transferChange('payout', shop, p, 2),
    ];
    const p2ps = [transferChange('p2p', shop, t, 1), transferChange('p2p', shop, t, 2)];
    await sendTogether(Topics.payoutsEvents, payouts);
    await sendTogether(Topics.p2pEvents, p2ps);

    const rows = await until(
      [...payouts, ...p2ps].map((e) => e.eventId),
      'payouts and P2P recorded',
    );
    const of = (type: string) => rows.filter((r) => r.object_type === type).map((r) => [r.object_id, r.sequence]);
    expect(of('payout')).toEqual([
      [p, 1],
      [q, 1],
      [p, 2],
    ]);
    expect(of('p2p')).toEqual([
      [t, 1],
      [t, 2],
    ]);
    // One shop across both topics: positions 1..5 without a gap or a repeat.
    expect(rows.map((r) => Number(r.feed_position)).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await heads([p, q, t])).every((h) => h.sequence === 1)).toBe(true);
    expect(calls.filter((c) => c.includes(payouts[0].eventId))).toEqual([payouts.map((e) => e.eventId)]);
    expect(calls.filter((c) => c.includes(p2ps[0].eventId))).toEqual([p2ps.map((e) => e.eventId)]);
  });
});
