// KafkaTransport with a batch handler: one call per fetched batch in offset order, duplicates
// applied once, a poison message dead-lettered alone, a failing batch retried one by one, a
// database outage waited out, and per-key order shared with per-message handlers.
import { randomUUID } from 'node:crypto';
import { Producer } from 'kafkajs';
import { envelope, Envelope, Topics } from '@payments/contracts';
import { eventually, TopicReader } from '@payments/testing';
import { applied, batchCalls, BatchPayload, batchStore, kafkaTransportHarness } from './kafka-transport.spec-support';

describe('KafkaTransport in a NestJS microservice against Kafka', () => {
  const { topic, dlq, maxAttempts, clients, deadLettered } = kafkaTransportHarness();
  let producer: Producer | undefined, reader: TopicReader | undefined;
  beforeAll(() => {
    ({ producer, reader } = clients());
  });

  describe('a batch handler', () => {
    /** Batch messages as one produce request to partition 0: the consumer fetches them together. */
    async function sendBatch(payloads: (Partial<BatchPayload> & { type?: string; same?: number })[]) {
      const envs: Envelope[] = [];
      for (const { type = 'test.batch', same, ...payload } of payloads)
        envs.push(same === undefined ? envelope({ type, payload, occurredAt: new Date() }) : envs[same]);
      await producer!.send({
        topic,
        acks: -1,
        messages: envs.map((env) => ({
          key: (env.payload as BatchPayload).key,
          value: JSON.stringify(env),
          partition: 0,
        })),
      });
      return envs;
    }

    const effects = async (ids: string[]) =>
      (await batchStore.ds!.query(
        `SELECT event_id, key, n FROM "${batchStore.schema}".effects WHERE event_id = ANY($1::uuid[]) ORDER BY id`,
        [ids],
      )) as { event_id: string; key: string; n: number }[];

    const allApplied = (ids: string[], what: string) =>
      eventually(
        async () => (ids.every((id) => applied.some((a) => a.eventId === id)) ? true : undefined),
        20000,
        what,
      );

    it('when messages of a batch handler arrive together, then it gets them in one call in offset order, and one another type keeps its own path', async () => {
      const run = randomUUID();
      const envs = await sendBatch(Array.from({ length: 8 }, (_, n) => ({ key: `k${n % 3}-${run}`, n })));
      const ids = envs.map((e) => e.eventId);
      await allApplied(ids, 'the batch applied');

      const call = batchCalls.find((c) => c.eventIds.includes(ids[0]))!;
      expect(call.eventIds).toEqual(ids);
      expect(call).toMatchObject({ topic: Topics.ledgerCommands, partition: 0 });
      expect((await effects(ids)).map((e) => e.event_id)).toEqual(ids);
    });

    it('when a batch holds a message twice and one already applied, then each is applied once and the offsets move on', async () => {
      const run = randomUUID();
      const [earlier] = await sendBatch([{ key: `dup-${run}`, n: 0 }]);
      await allApplied([earlier.eventId], 'the earlier message');
      const envs = await sendBatch([{ key: `dup-${run}`, n: 1 }, { same: 0 }, { key: `dup-${run}`, n: 2 }]);
      // The same envelope again, and the earlier one redelivered, in one batch.
      await producer!.send({
        topic,
        acks: -1,
        messages: [envs[0], earlier, envs[2]].map((env) => ({
          key: `dup-${run}`,
          value: JSON.stringify(env),
          partition: 0,
        })),
      });
      const next = await sendBatch([{ key: `dup-${run}`, n: 3 }]);
      await allApplied([next[0].eventId], 'the message after the duplicates');

      expect((await effects([earlier, ...envs, ...next].map((e) => e.eventId))).map((e) => e.n)).toEqual([0, 1, 2, 3]);
      expect(applied.filter((a) => a.key === `dup-${run}`).map((a) => a.n)).toEqual([0, 1, 2, 3]);
    });

    it('when one message of a batch is poison, then only it is dead-lettered, at once, and its neighbours are applied', async () => {
      const run = randomUUID();
      const envs = await sendBatch([
        { key: `a-${run}`, n: 0 },
        { key: `p-${run}`, n: 0, mode: 'contract' },
        { key: `a-${run}`, n: 1 },
        { key: `b-${run}`, n: 0 },
      ]);
      const poison = envs[1];
      const good = envs.filter((e) => e !== poison).map((e) => e.eventId);
      await allApplied(good, 'the good messages');

      const dead = await deadLettered((m) => m.json?.eventId === poison.eventId);
      expect(dead.headers).toMatchObject({ 'dlq-error': `test.batch: p-${run} is poison`, 'dlq-attempts': '1' });
      // One try with all four, then one without the poison.
      expect(batchCalls.filter((c) => c.eventIds.some((id) => envs.some((e) => e.eventId === id)))).toEqual([
        expect.objectContaining({ eventIds: envs.map((e) => e.eventId) }),
        expect.objectContaining({ eventIds: good }),
      ]);
      expect((await effects(envs.map((e) => e.eventId))).map((e) => e.event_id)).toEqual(good);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader!.messages.filter((m) => m.topic === dlq && good.includes(m.json?.eventId as string))).toEqual([]);
    });

    it('when a batch fails without naming a message, then its messages are tried one by one: the failing one is dead-lettered after maxAttempts, the others applied', async () => {
      const run = randomUUID();
      const envs = await sendBatch([
        { key: `c-${run}`, n: 0 },
        { key: `e-${run}`, n: 0, mode: 'error' },
        { key: `c-${run}`, n: 1 },
      ]);
      const good = [envs[0].eventId, envs[2].eventId];
      await allApplied(good, 'the good messages');
      const dead = await deadLettered((m) => m.json?.eventId === envs[1].eventId);
      expect(dead.headers).toMatchObject({
        'dlq-error': `test.batch: e-${run} broke`,
        'dlq-attempts': String(maxAttempts),
      });
      expect(batchCalls.filter((c) => c.eventIds.includes(envs[1].eventId)).slice(1)).toEqual(
        Array(maxAttempts).fill(expect.objectContaining({ eventIds: [envs[1].eventId] })),
      );
      expect((await effects(envs.map((e) => e.eventId))).map((e) => e.n)).toEqual([0, 1]);
    });

    it('when the database is unreachable for more tries than maxAttempts, then the whole batch waits for it and is applied once, nothing dead-lettered', async () => {
      const run = randomUUID();
      const outageCalls = maxAttempts + 2;
      const envs = await sendBatch([
        { key: `o-${run}`, n: 0 },
        { key: `o-${run}`, n: 1, mode: 'outage', outageCalls },
        { key: `o-${run}`, n: 2 },
      ]);
      const ids = envs.map((e) => e.eventId);
      await allApplied(ids, 'the batch after the outage');

      const tries = batchCalls.filter((c) => c.eventIds.includes(ids[0]));
      expect(tries).toHaveLength(outageCalls + 1);
      for (const t of tries) expect(t.eventIds).toEqual(ids);
      expect((await effects(ids)).map((e) => e.n)).toEqual([0, 1, 2]);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader!.messages.filter((m) => m.topic === dlq && ids.includes(m.json?.eventId as string))).toEqual([]);
    });

    it('when batch and per-message handlers share keys in a partition, then every key is applied in offset order', async () => {
      const run = randomUUID();
      const keys = [`x-${run}`, `y-${run}`, `z-${run}`];
      const sent: Envelope[] = [];
      for (let round = 0; round < 3; round++)
        sent.push(
          ...(await sendBatch(
            Array.from({ length: 9 }, (_, i) => ({
              key: keys[i % 3],
              n: round * 3 + Math.floor(i / 3),
              // Every fourth a message for the per-message path: the runs must not overtake each other.
              type: i % 4 === 3 ? 'test.ok' : 'test.batch',
            })),
          )),
        );
      await allApplied(
        sent.map((e) => e.eventId),
        'all 27 messages',
      );
      for (const key of keys)
        expect(applied.filter((a) => a.key === key).map((a) => a.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });
});
