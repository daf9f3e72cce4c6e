import { LiveViewCache } from './live-view-cache';

interface View {
  id: string;
  linkStatus: string;
  expiresAt: string;
  n: number;
}

function setUp(opts: { refreshAfterMs?: number; maxAgeMs?: number; maxEntries?: number } = {}) {
  let now = Date.parse('2026-11-25T00:00:00Z');
  const cache = new LiveViewCache<View>({
    refreshAfterMs: opts.refreshAfterMs ?? 1000,
    maxAgeMs: opts.maxAgeMs ?? 3000,
    maxEntries: opts.maxEntries ?? 100,
    now: () => now,
  });
  let reads = 0;
  let next: Partial<View> = {};
  const read = (id = 'a') => {
    reads++;
    const value: View = {
      id,
      linkStatus: 'live',
      expiresAt: new Date(now + 60_000).toISOString(),
      n: reads,
      ...next,
    };
    return Promise.resolve({ kind: 'ok' as const, value });
  };
  return {
    cache,
    read,
    reads: () => reads,
    advance: (ms: number) => (now += ms),
    answerNext: (v: Partial<View>) => (next = v),
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LiveViewCache', () => {
  it('serves a live view from memory until it is due for a refresh, then refreshes behind the answer', async () => {
    const t = setUp();
    expect(await t.cache.get('a', t.read)).toMatchObject({ kind: 'ok', value: { n: 1 } });
    t.advance(500);
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { n: 1 } });
    expect(t.reads()).toBe(1);
    t.advance(600); // 1.1 s old: served, and read again behind it
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { n: 1 } });
    await flush();
    expect(t.reads()).toBe(2);
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { n: 2 } });
  });

  it('never serves a view older than its maximum age', async () => {
    const t = setUp({ refreshAfterMs: 60_000, maxAgeMs: 3000 });
    await t.cache.get('a', t.read);
    t.advance(3000);
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { n: 2 } });
    expect(t.reads()).toBe(2);
  });

  it('never serves a view past the link expiry', async () => {
    const t = setUp();
    t.answerNext({ expiresAt: new Date(Date.parse('2026-11-25T00:00:00Z') + 200).toISOString() });
    await t.cache.get('a', t.read);
    t.advance(200);
    t.answerNext({ linkStatus: 'expired' });
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { linkStatus: 'expired' } });
    expect(t.cache.size).toBe(0);
  });

  it('keeps no view that follows a payment, and drops a kept one when the link is no longer live', async () => {
    const t = setUp({ refreshAfterMs: 0 });
    t.answerNext({ linkStatus: 'used' });
    await t.cache.get('a', t.read);
    await t.cache.get('a', t.read);
    expect(t.reads()).toBe(2);
    expect(t.cache.size).toBe(0);
    t.answerNext({ linkStatus: 'live' });
    await t.cache.get('a', t.read);
    expect(t.cache.size).toBe(1);
    t.answerNext({ linkStatus: 'used' });
    await t.cache.get('a', t.read); // kept view served, refresh behind it sees the payment
    await flush();
    expect(t.cache.size).toBe(0);
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { linkStatus: 'used' } });
  });

  it('keeps nothing from an answer other than a view (not found, service down)', async () => {
    const t = setUp();
    let calls = 0;
    const down = () => {
      calls++;
      return Promise.resolve({ kind: 'down' as const });
    };
    expect(await t.cache.get('a', down)).toEqual({ kind: 'down' });
    expect(await t.cache.get('a', down)).toEqual({ kind: 'down' });
    expect(calls).toBe(2);
  });

  it('makes one read for many payers of one link at once', async () => {
    const t = setUp();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async () => {
      await gate;
      return t.read();
    };
    const answers = Promise.all([1, 2, 3, 4, 5].map(() => t.cache.get('a', slow)));
    release();
    expect((await answers).map((a) => (a as { value: View }).value.n)).toEqual([1, 1, 1, 1, 1]);
    expect(t.reads()).toBe(1);
  });

  it('forgets a link, also against a read that started before', async () => {
    const t = setUp({ refreshAfterMs: 0 });
    await t.cache.get('a', t.read);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stale = async () => {
      await gate;
      return t.read();
    };
    await t.cache.get('a', stale); // served from memory; a refresh waits on the gate
    t.cache.forget('a');
    release();
    await flush();
    await flush();
    expect(t.cache.size).toBe(0);
    t.answerNext({ linkStatus: 'used' });
    expect(await t.cache.get('a', t.read)).toMatchObject({ value: { linkStatus: 'used' } });
  });

  it('forgets a link before and after a change, also when the change fails', async () => {
    const t = setUp();
    await t.cache.get('a', t.read);
    const during = await t.cache.changing('a', () => Promise.resolve(t.cache.size));
    expect(during).toBe(0);
    await t.cache.get('a', t.read);
    await expect(
      t.cache.changing('a', async () => {
        await t.cache.get('a', t.read); // a load during the change is kept…
        throw new Error('not answered');
      }),
    ).rejects.toThrow('not answered');
    expect(t.cache.size).toBe(0); // …and forgotten when it ends
  });

  it('holds at most maxEntries views, dropping the oldest stored', async () => {
    const t = setUp({ maxEntries: 2 });
    await t.cache.get('a', () => t.read('a'));
    await t.cache.get('b', () => t.read('b'));
    await t.cache.get('c', () => t.read('c'));
    expect(t.cache.size).toBe(2);
    const before = t.reads();
    await t.cache.get('a', () => t.read('a'));
    expect(t.reads()).toBe(before + 1);
  });
});
