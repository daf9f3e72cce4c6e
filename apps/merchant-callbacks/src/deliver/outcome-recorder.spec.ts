import { OutcomeRecorder } from './outcome-recorder';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Group commit: what goes into one write, and what a failing write comes to. */
describe('the outcome recorder', () => {
  it('when outcomes finish while a write runs, then they go together in the next write', async () => {
    const writes: string[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const recorder = new OutcomeRecorder<string>({
      write: async (batch) => {
        writes.push([...batch]);
        if (writes.length === 1) await firstWrite;
        return new Set(batch.filter((id) => id !== 'lost'));
      },
      idOf: (id) => id,
      maxBatch: 2,
      writers: 1,
      tries: 1,
      retryForMs: 1000,
      logger: quiet,
    });
    const results = ['a', 'b', 'lost', 'd'].map((id) => recorder.record(id));
    release();
    expect(await Promise.all(results)).toEqual([true, true, false, true]);
    expect(writes).toEqual([['a'], ['b', 'lost'], ['d']]);
  });

  it('when several writers may run, then a write that waits does not hold up the outcomes after it', async () => {
    const writes: string[][] = [];
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const recorder = new OutcomeRecorder<string>({
      write: async (batch) => {
        writes.push([...batch]);
        if (batch.includes('slow')) await stuck;
        return new Set(batch);
      },
      idOf: (id) => id,
      maxBatch: 10,
      writers: 2,
      tries: 1,
      retryForMs: 1000,
      logger: quiet,
    });
    const slow = recorder.record('slow');
    expect(await recorder.record('fast')).toBe(true);
    release();
    expect(await slow).toBe(true);
    expect(writes).toEqual([['slow'], ['fast']]);
  });

  it('when a write fails, then it is tried again, and its outcomes fail once the tries are used up', async () => {
    let calls = 0;
    const recorder = new OutcomeRecorder<string>({
      write: async (batch) => {
        calls++;
        if (calls <= 3) throw new Error('deadlock detected');
        return new Set(batch);
      },
      idOf: (id) => id,
      maxBatch: 10,
      writers: 1,
      tries: 3,
      retryForMs: 1000,
      logger: quiet,
    });
    await expect(recorder.record('a')).rejects.toThrow('deadlock detected');
    expect(calls).toBe(3);
    // The recorder goes on after a failed batch.
    expect(await recorder.record('b')).toBe(true);
    expect(calls).toBe(4);
  });

  it('when the database is away for longer than the tries of a write, then the batch waits for it and is recorded', async () => {
    let calls = 0;
    const recorder = new OutcomeRecorder<string>({
      write: async (batch) => {
        calls++;
        // PostgreSQL restarting: admin shutdown, then refused connections.
        if (calls <= 5) throw Object.assign(new Error('terminating connection'), { code: '57P01' });
        return new Set(batch);
      },
      idOf: (id) => id,
      maxBatch: 10,
      writers: 1,
      tries: 3,
      retryForMs: 5000,
      logger: quiet,
    });
    expect(await recorder.record('a')).toBe(true);
    expect(calls).toBe(6);
  });

  it('when the database stays away past the retry bound, then the outcomes fail', async () => {
    let calls = 0;
    const recorder = new OutcomeRecorder<string>({
      write: async () => {
        calls++;
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      },
      idOf: (id) => id,
      maxBatch: 10,
      writers: 1,
      tries: 3,
      retryForMs: 300,
      logger: quiet,
    });
    await expect(recorder.record('a')).rejects.toThrow('ECONNREFUSED');
    // 50 + 100 ms of pauses fit in 300 ms, 200 more do not: three tries.
    expect(calls).toBe(3);
  });

  it('when one outcome of a batch is refused by the database, then the others of the batch are still recorded', async () => {
    const writes: string[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const recorder = new OutcomeRecorder<string>({
      write: async (batch) => {
        writes.push([...batch]);
        if (writes.length === 1) await firstWrite;
        if (batch.includes('poison')) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
        return new Set(batch);
      },
      idOf: (id) => id,
      maxBatch: 8,
      writers: 1,
      tries: 2,
      retryForMs: 1000,
      logger: quiet,
    });
    const first = recorder.record('first');
    const ids = ['a', 'b', 'c', 'poison', 'e', 'f', 'g'];
    const results = ids.map((id) =>
      recorder.record(id).then(
        (r) => r,
        (err: Error) => err.message,
      ),
    );
    release();
    expect(await first).toBe(true);
    expect(await Promise.all(results)).toEqual([
      true,
      true,
      true,
      'invalid byte sequence for encoding "UTF8": 0x00',
      true,
      true,
      true,
    ]);
    // The batch, its halves, the failing half's halves, then the single outcome tried twice.
    expect(writes.filter((w) => w.includes('poison'))).toEqual([
      ids,
      ['a', 'b', 'c', 'poison'],
      ['c', 'poison'],
      ['poison'],
      ['poison'],
    ]);
  });
});
