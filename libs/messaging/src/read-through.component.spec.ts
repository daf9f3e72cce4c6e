import { Admin, Consumer, Partitioners, Producer } from 'kafkajs';
import { Topics } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
import { eventually, testBrokers, testKafka, uniqueName } from '@payments/testing';
import { ReadThrough } from './read-through';

/**
 * Decision 357 against a real broker: how far a consumer group has read a topic, from the topic's
 * high watermarks and the group's committed offsets as Kafka reports them.
 */
describe('ReadThrough: until when a consumer group has read a topic', () => {
  const prefix = `${uniqueName('rt')}.`;
  const topic = prefix + Topics.payoutsEvents;
  const group = 'ledger-events';
  const kafka: KafkaConfig = {
    brokers: testBrokers(),
    clientId: 'read-through-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
  };
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  /** A member of the group that reads nothing and commits what the test says (the group's position). */
  let member: Consumer | undefined;
  let clock = 1_000_000;
  let readThrough: ReadThrough;

  beforeAll(async () => {
    admin = testKafka('rt-admin').admin();
    await admin.connect();
    // The one topic read, as the contract creates it (4 partitions, as in the other specs).
    await admin.createTopics({ topics: [{ topic, numPartitions: 4, replicationFactor: 1 }], waitForLeaders: true });
    producer = testKafka('rt-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    member = testKafka('rt-member').consumer({ groupId: prefix + group });
    await member.connect();
    await member.subscribe({ topics: [topic] });
    const joined = new Promise((resolve) => member!.on(member!.events.GROUP_JOIN, resolve));
    await member.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
    member.pause([{ topic }]);
    await joined;
    readThrough = new ReadThrough(kafka, group, () => new Date(clock));
    // A topic just created answers offsets once its partitions have a leader.
    await eventually(async () => ((await admin!.fetchTopicOffsets(topic).catch(() => undefined)) ? true : undefined));
  });

  afterAll(async () => {
    await readThrough?.close();
    await member?.disconnect();
    await producer?.disconnect();
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
  });

  /** Sends `n` messages to `partition`; answers its high watermark after them. */
  const send = async (partition: number, n: number): Promise<number> => {
    const messages = Array.from({ length: n }, (_, i) => ({ partition, value: `m${i}` }));
    await producer!.send({ topic, acks: -1, messages });
    const offsets = await admin!.fetchTopicOffsets(topic);
    return Number(offsets.find((o) => o.partition === partition)!.high);
  };
  /** The group's offset on `partition`, as its consumer commits it (the next offset to read). */
  const commit = (partition: number, offset: number) =>
    member!.commitOffsets([{ topic, partition, offset: String(offset) }]);
  const at = async (ms: number) => {
    clock = ms;
    return (await readThrough.through(Topics.payoutsEvents))?.getTime() ?? null;
  };

  it('when the topic is empty, then it is read through now, with nothing committed', async () => {
    expect(await at(1_000_000)).toBe(1_000_000);
  });

  it('when messages wait unread on one partition, then it is read through no later than before they came, and through the newest moment once committed', async () => {
    const high0 = await send(0, 3);
    const high1 = await send(1, 2);
    // The first reading was taken before the messages: the group is through it, and no further.
    expect(await at(2_000_000)).toBe(1_000_000);

    await commit(0, high0);
    expect(await at(3_000_000)).toBe(1_000_000);
    await commit(1, high1 - 1);
    expect(await at(4_000_000)).toBe(1_000_000);

    await commit(1, high1);
    expect(await at(5_000_000)).toBe(5_000_000);
  });

  it('when the group is behind only the newest messages, then the reading taken before them is answered', async () => {
    const high0 = await send(0, 1);
    expect(await at(6_000_000)).toBe(5_000_000);
    const newer = await send(0, 1);
    expect(await at(7_000_000)).toBe(5_000_000);
    await commit(0, high0);
    expect(await at(8_000_000)).toBe(6_000_000);
    await commit(0, newer);
    expect(await at(9_000_000)).toBe(9_000_000);
  });

  it('when a partition is added and a message waits on it, then the topic is not read through past it until the group commits it', async () => {
    for (const o of await admin!.fetchTopicOffsets(topic)) await commit(o.partition, Number(o.high));
    expect(await at(10_000_000)).toBe(10_000_000);
    await admin!.createPartitions({ topicPartitions: [{ topic, count: 5 }] });
    // A client of its own: it knows the new partition from the start.
    const late = testKafka('rt-late').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await late.connect();
    await eventually(() =>
      late.send({ topic, acks: -1, messages: [{ partition: 4, value: 'new' }] }).catch(() => undefined),
    );
    await late.disconnect();

    // Through the reading before the message at most; or, its partition not in this client's offsets yet, cannot tell.
    expect([10_000_000, null]).toContain(await at(11_000_000));
    expect([10_000_000, null]).toContain(await at(12_000_000));

    // A client whose cached metadata does not know the new partition yet (kafkajs keeps it up to
    // five minutes): its offsets leave the partition out, and the reading must not be taken as
    // one of the whole topic.
    const stale = new ReadThrough(
      kafka,
      group,
      () => new Date(clock),
      10_000,
      () => {
        const real = testKafka('rt-stale').admin();
        return Object.assign(Object.create(real) as Admin, {
          fetchTopicOffsets: async (name: string) =>
            (await real.fetchTopicOffsets(name)).filter((o) => o.partition !== 4),
        });
      },
    );
    clock = 12_500_000;
    expect(await stale.through(Topics.payoutsEvents)).toBeNull();
    await stale.close();

    await commit(4, 1);
    const answers = [await at(13_000_000), await at(14_000_000)];
    expect(answers.at(-1)).toBe(14_000_000);
  });
});
