import { Consumer, Offsets } from 'kafkajs';
import { OffsetCommitter } from './offset-committer';

describe('OffsetCommitter', () => {
  it('when offsets are finished, then one commit sends the next offset of each partition, the latest per partition', async () => {
    const committer = new OffsetCommitter(1000);
    committer.finished('a', 0, '4');
    committer.finished('a', 0, '9');
    committer.finished('a', 1, '2');
    committer.finished('b', 0, '0');
    const sent: Offsets[] = [];
    await committer.commit(async (o) => sent.push(o));
    expect(sent).toEqual([
      {
        topics: [
          {
            topic: 'a',
            partitions: [
              { partition: 0, offset: '10' },
              { partition: 1, offset: '3' },
            ],
          },
          { topic: 'b', partitions: [{ partition: 0, offset: '1' }] },
        ],
      },
    ]);
    await committer.commit(async (o) => sent.push(o));
    expect(sent).toHaveLength(1);
  });

  it('when the interval has not passed since the last commit, then nothing is due; with interval 0 every finished batch is', async () => {
    const committer = new OffsetCommitter(1000);
    expect(committer.due()).toBe(false);
    committer.finished('a', 0, '1');
    await committer.commit(async () => undefined);
    committer.finished('a', 0, '2');
    expect(committer.due()).toBe(false);
    expect(committer.due(Date.now() + 1000)).toBe(true);

    const every = new OffsetCommitter(0);
    expect(every.due()).toBe(false);
    every.finished('a', 0, '1');
    expect(every.due()).toBe(true);
  });

  it('when a commit fails, then its offsets wait for the next one, unless the partition moved on meanwhile', async () => {
    const committer = new OffsetCommitter(1000);
    committer.finished('a', 0, '5');
    committer.finished('a', 1, '7');
    await expect(
      committer.commit(async () => {
        committer.finished('a', 1, '8');
        throw new Error('REBALANCE_IN_PROGRESS');
      }),
    ).rejects.toThrow('REBALANCE_IN_PROGRESS');
    const sent: Offsets[] = [];
    await committer.commit(async (o) => sent.push(o));
    expect(sent[0].topics[0].partitions).toEqual([
      { partition: 1, offset: '9' },
      { partition: 0, offset: '6' },
    ]);
  });

  it('when a rebalance took partitions away, then their offsets are not committed by this member', async () => {
    const committer = new OffsetCommitter(1000);
    committer.finished('a', 0, '5');
    committer.finished('a', 1, '7');
    committer.finished('b', 0, '1');
    committer.keepOnly({ a: [1] });
    const sent: Offsets[] = [];
    await committer.commit(async (o) => sent.push(o));
    expect(sent).toEqual([{ topics: [{ topic: 'a', partitions: [{ partition: 1, offset: '8' }] }] }]);
  });

  describe('on a consumer', () => {
    /** A consumer as far as the committer uses it: its commits and the listeners it was given. */
    function aConsumer() {
      const commits: unknown[] = [];
      const listeners = new Map<string, (e: unknown) => void>();
      const consumer = {
        events: { REBALANCING: 'consumer.rebalancing', GROUP_JOIN: 'consumer.group_join' },
        on: (event: string, listener: (e: unknown) => void) => listeners.set(event, listener),
        commitOffsets: async (offsets: unknown) => {
          commits.push(offsets);
        },
      } as unknown as Consumer;
      return { consumer, commits, listeners };
    }

    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('when the traffic stops with offsets finished, then the interval commits them through the consumer, once', async () => {
      const { consumer, commits } = aConsumer();
      const committer = new OffsetCommitter(1000);
      committer.start(consumer, (e) => {
        throw e;
      });
      committer.finished('a', 0, '41');
      await jest.advanceTimersByTimeAsync(999);
      expect(commits).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(commits).toEqual([[{ topic: 'a', partition: 0, offset: '42' }]]);
      await jest.advanceTimersByTimeAsync(5000);
      expect(commits).toHaveLength(1);
      committer.stop();
    });

    it('when a rebalance starts, then what is finished is committed at once; after the join only the partitions kept are', async () => {
      const { consumer, commits, listeners } = aConsumer();
      const committer = new OffsetCommitter(60_000);
      committer.start(consumer, (e) => {
        throw e;
      });
      committer.finished('a', 0, '1');
      listeners.get('consumer.rebalancing')!({});
      await jest.advanceTimersByTimeAsync(0);
      expect(commits).toEqual([[{ topic: 'a', partition: 0, offset: '2' }]]);

      committer.finished('a', 0, '5');
      committer.finished('a', 1, '9');
      listeners.get('consumer.group_join')!({ payload: { memberAssignment: { a: [1] } } });
      listeners.get('consumer.rebalancing')!({});
      await jest.advanceTimersByTimeAsync(0);
      expect(commits[1]).toEqual([{ topic: 'a', partition: 1, offset: '10' }]);
      committer.stop();
    });

    it('when the last commit of a stopping consumer does not finish in time, then the stop goes on without it', async () => {
      const committer = new OffsetCommitter(1000);
      committer.finished('a', 0, '1');
      let settled = false;
      const stopping = committer.commitBefore(() => new Promise(() => undefined), 3000).then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(2999);
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await stopping;
      expect(settled).toBe(true);
    });
  });
});
