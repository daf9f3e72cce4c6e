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
      logger: quiet,
    });
    await expect(recorder.record('a')).rejects.toThrow('deadlock detected');
    expect(calls).toBe(3);
    // The recorder goes on after a failed batch.
    expect(await recorder.record('b')).toBe(true);
    expect(calls).toBe(4);
  });
});
