import type { Admin } from 'kafkajs';
import { latestPassed, MarkBook, ReadThrough } from './read-through';

const mark = (at: number, highs: Record<number, number>) => ({
  at,
  highs: new Map(Object.entries(highs).map(([p, h]) => [Number(p), BigInt(h)])),
});
const position = (committed: Record<number, number>, lows: Record<number, number> = {}) => ({
  committed: new Map(Object.entries(committed).map(([p, o]) => [Number(p), BigInt(o)])),
  lows: new Map(Object.entries(lows).map(([p, o]) => [Number(p), BigInt(o)])),
});

describe('latestPassed: the latest mark a group has committed past on every partition', () => {
  const marks = [mark(1, { 0: 5, 1: 3 }), mark(2, { 0: 8, 1: 3 }), mark(3, { 0: 9, 1: 7 })];

  it('when the group committed past every mark, then the newest is answered', () => {
    expect(latestPassed(marks, position({ 0: 9, 1: 7 }))).toBe(2);
  });

  it('when the group is a few messages behind the newest mark, then the one before it is answered', () => {
    expect(latestPassed(marks, position({ 0: 8, 1: 6 }))).toBe(1);
  });

  it('when one partition is behind every mark, then none is passed, whatever the others committed', () => {
    expect(latestPassed(marks, position({ 0: 100, 1: 2 }))).toBe(-1);
  });

  it('when the group never committed on a partition that held messages, then none is passed', () => {
    expect(latestPassed(marks, position({ 0: 9 }))).toBe(-1);
  });

  it('when a partition held nothing at a mark (high at its oldest retained), then it does not hold the mark back', () => {
    expect(latestPassed([mark(1, { 0: 0, 1: 4 })], position({ 1: 4 }))).toBe(0);
    // Retention removed what it held unread: nothing is left to read of it.
    expect(latestPassed([mark(1, { 0: 6, 1: 4 })], position({ 1: 4 }, { 0: 6 }))).toBe(0);
  });

  it('when there is no mark yet, then none is passed', () => {
    expect(latestPassed([], position({ 0: 9 }))).toBe(-1);
  });
});

describe('MarkBook: the readings kept between calls', () => {
  const highs = (h0: number) => ({ 0: h0 });

  it('when the group is through the newest reading, then it is answered and the older ones are forgotten', () => {
    const book = new MarkBook();
    expect(book.record(mark(0, highs(1)), position({}))).toBeNull();
    expect(book.record(mark(5000, highs(2)), position({ 0: 2 }))?.getTime()).toBe(5000);
    expect(book.kept()).toEqual([5000]);
  });

  it('when readings come less than a second apart, then one a second is kept, and a group behind answers with a kept one', () => {
    const book = new MarkBook();
    book.record(mark(0, highs(0)), position({}));
    for (let at = 100; at <= 2500; at += 100) book.record(mark(at, highs(at / 100)), position({}));
    expect(book.kept()).toEqual([0, 1000, 2000]);
    // Committed through what the reading at 1000 held (10), not what 1100 held (11).
    expect(book.record(mark(2600, highs(26)), position({ 0: 10 }))?.getTime()).toBe(1000);
    expect(book.kept()).toEqual([1000, 2000]);
  });

  it('when more than 30 readings wait unpassed, then the oldest go, and a group behind all of those kept is not through', () => {
    const book = new MarkBook();
    for (let i = 0; i <= 31; i++) expect(book.record(mark(i * 1000, highs(i + 1)), position({}))).toBeNull();
    expect(book.kept()).toHaveLength(30);
    expect(book.kept()[0]).toBe(2000);
    // Through the reading at 1000 (high 2), which is no longer kept: the caller waits.
    expect(book.record(mark(32_000, highs(33)), position({ 0: 2 }))).toBeNull();
    expect(book.kept()[0]).toBe(3000);
    // Through the oldest kept (3000, high 4): that one is answered.
    expect(book.record(mark(33_000, highs(34)), position({ 0: 4 }))?.getTime()).toBe(3000);
  });
});

describe('ReadThrough when Kafka does not answer', () => {
  const kafka = { brokers: ['127.0.0.1:1'], clientId: 'rt-unit', topicPrefix: 'p.', replicationFactor: 1 };
  /** An admin client that connects, and whose metadata request `metadata` answers. */
  const adminWith = (metadata: () => Promise<never>, made: string[]) => () => {
    made.push('admin');
    return {
      connect: async () => undefined,
      // As kafkajs's does with a request in flight: it waits for it, here for ever.
      disconnect: () => new Promise<void>(() => undefined),
      fetchTopicMetadata: metadata,
    } as unknown as Admin;
  };

  it('when a reading hangs, then it is given up after the time limit as "cannot tell", without waiting for its client to close, and the next reading uses a new client', async () => {
    const made: string[] = [];
    const rt = new ReadThrough(
      kafka,
      'g',
      () => new Date(),
      50,
      adminWith(() => new Promise<never>(() => undefined), made),
    );
    const started = Date.now();
    expect(await rt.through('payouts.events')).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await rt.through('payouts.events')).toBeNull();
    expect(made).toEqual(['admin', 'admin']);
  });

  it('when a reading fails, then it is "cannot tell", never an error to the caller', async () => {
    const made: string[] = [];
    const rt = new ReadThrough(
      kafka,
      'g',
      () => new Date(),
      1000,
      adminWith(() => Promise.reject(new Error('broker away')), made),
    );
    await expect(rt.through('orders.events')).resolves.toBeNull();
    expect(made).toEqual(['admin']);
  });
});
