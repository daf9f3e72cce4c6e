import { Offsets } from 'kafkajs';
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
});
