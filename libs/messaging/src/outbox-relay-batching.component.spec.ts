// The outbox relay's rounds: a batch goes out in one produce request and is marked with one
// statement; a produce request that fails part-way marks nothing and the next round sends it all.
import { ProducerBatch } from 'kafkajs';
import { TopicReader } from '@payments/testing';
import { outboxRelayHarness } from './outbox-relay.spec-support';

describe('outbox relay against PostgreSQL and Kafka', () => {
  const {
    prefix,
    readers,
    aDataSource,
    aSchema,
    aRelay,
    unpublished,
    sequencesByKey,
    writeElsewhere,
    producerOf,
    interleaved,
    watchMarks,
  } = outboxRelayHarness(['batch.one', 'batch.two', 'partial.one', 'partial.two']);

  it('when many rows of several keys and topics wait, then one round publishes them in one produce request, each once and in per-key order, and marks them all with one statement', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const [t1, t2] = ['batch.one', 'batch.two'];
    const reader = await TopicReader.start([prefix + t1, prefix + t2], { contract: false });
    readers.push(reader);
    const batches: string[][] = [];
    const relay = await aRelay({
      dataSource: ds,
      schema,
      pollIntervalMs: 60_000,
      afterPublish: (ids) => void batches.push(ids),
    });
    await relay.drain(); // its first round is over: it sleeps until woken or drained
    const produce = jest.spyOn(producerOf(relay), 'sendBatch');
    const watch = watchMarks();
    try {
      const items = interleaved(t1, t2);
      await writeElsewhere(schema, items);

      expect(await relay.drain()).toBe(items.length);

      expect(produce).toHaveBeenCalledTimes(1);
      const request = produce.mock.calls[0][0] as ProducerBatch;
      expect(request.acks).toBe(-1);
      expect(request.topicMessages?.map((t) => [t.topic, t.messages.length])).toEqual([
        [prefix + t1, 12],
        [prefix + t2, 12],
      ]);
      expect(batches).toHaveLength(1);
      expect(batches[0]).toHaveLength(items.length);
      expect(watch.marks).toHaveLength(1);
      expect(await unpublished(ds, schema)).toBe(0);

      const seen = await reader.waitFor(items.length);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader.messages).toHaveLength(items.length);
      expect(new Set(seen.map((m) => m.json.eventId))).toEqual(new Set(items.map((i) => i.envelope.eventId)));
      const inOrder = [1, 2, 3, 4, 5, 6];
      expect(sequencesByKey(seen.map((m) => m.json.payload))).toEqual(
        new Map(['key-a', 'key-b', 'key-c', 'key-d'].map((k) => [k, inOrder])),
      );
      for (const m of seen) expect(m.topic).toBe(prefix + (['key-a', 'key-b'].includes(m.key!) ? t1 : t2));
    } finally {
      watch.restore();
    }
  });

  it('when a produce request fails after part of the batch reached the broker, then no row of the batch is marked, and the next round publishes it all again in per-key order', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const [t1, t2] = ['partial.one', 'partial.two'];
    const reader = await TopicReader.start([prefix + t1, prefix + t2], { contract: false });
    readers.push(reader);
    const relay = await aRelay({ dataSource: ds, schema, pollIntervalMs: 60_000 });
    await relay.drain();
    const producer = producerOf(relay);
    const send = producer.sendBatch.bind(producer);
    // The broker takes the first topic's messages, then the request fails (a partition's error).
    const produce = jest.spyOn(producer, 'sendBatch').mockImplementationOnce(async (batch) => {
      await send({ ...batch, topicMessages: batch.topicMessages!.slice(0, 1) });
      throw new Error('the broker failed the rest of the request');
    });
    const watch = watchMarks();
    try {
      const items = interleaved(t1, t2);
      await writeElsewhere(schema, items);

      await expect(relay.drain()).rejects.toThrow('the broker failed the rest of the request');
      expect(watch.marks).toEqual([]);
      expect(await unpublished(ds, schema)).toBe(items.length);
      await reader.waitFor(12);

      expect(await relay.drain()).toBe(items.length);
      expect(produce).toHaveBeenCalledTimes(2);
      expect(watch.marks).toHaveLength(1);
      expect(await unpublished(ds, schema)).toBe(0);

      const seen = await reader.waitFor(items.length + 12);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader.messages).toHaveLength(items.length + 12);
      // The first topic's rows went out twice (consumers' inbox drops the second), the rest once;
      // each key's events in order each time.
      const inOrder = [1, 2, 3, 4, 5, 6];
      expect(sequencesByKey(seen.map((m) => m.json.payload))).toEqual(
        new Map([
          ['key-a', [...inOrder, ...inOrder]],
          ['key-b', [...inOrder, ...inOrder]],
          ['key-c', inOrder],
          ['key-d', inOrder],
        ]),
      );
    } finally {
      watch.restore();
    }
  });
});
