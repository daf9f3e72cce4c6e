import { GroupCommit } from './group-commit';

describe('group commit: calls handed over together run as one', () => {
  it('when calls come in the same turn, then they run once, in the order they came', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number>(async (items) => {
      runs.push([...items]);
    });
    await Promise.all([group.submit([1, 2]), group.submit([3]), group.submit([4, 5])]);
    expect(runs).toEqual([[1, 2, 3, 4, 5]]);
  });

  it('when calls come while a run is under way, then they wait for it and run together after it', async () => {
    const runs: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const group = new GroupCommit<number>(async (items) => {
      runs.push([...items]);
      if (runs.length === 1) await first;
    });
    const a = group.submit([1]);
    await new Promise((r) => setImmediate(r));
    const b = group.submit([2]);
    const c = group.submit([3]);
    release();
    await Promise.all([a, b, c]);
    expect(runs).toEqual([[1], [2, 3]]);
  });

  it('when the group run fails for a reason nobody is blamed for, then each call runs alone and only the failing one rejects', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number>(async (items) => {
      runs.push([...items]);
      if (items.includes(13)) throw new Error('13 cannot be booked');
    });
    const outcomes = await Promise.allSettled([group.submit([1]), group.submit([12, 13]), group.submit([14])]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : o.status))).toEqual([
      'fulfilled',
      '13 cannot be booked',
      'fulfilled',
    ]);
    expect(runs).toEqual([[1, 12, 13, 14], [1], [12, 13], [14]]);
    // The group is not stuck after a failure.
    await group.submit([2]);
    expect(runs.at(-1)).toEqual([2]);
  });

  it('when the failure names an item, then only its call rejects, unrun again, and the others run again as a group', async () => {
    const runs: number[][] = [];
    const named = (item: number) => Object.assign(new Error(`${item} cannot be booked`), { item });
    const group = new GroupCommit<number>(
      async (items) => {
        runs.push([...items]);
        if (items.includes(13)) throw named(13);
      },
      (err) =>
        typeof (err as { item?: number }).item === 'number' ? (i) => i === (err as { item: number }).item : 'unknown',
    );
    const outcomes = await Promise.allSettled([group.submit([1]), group.submit([12, 13]), group.submit([14])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toEqual([
      [1, 12, 13, 14],
      [1, 14],
    ]);
  });

  it("when the failure is everyone's (the database is down), then every call rejects with it and nothing runs again", async () => {
    let runs = 0;
    const down = new Error('connection refused');
    const group = new GroupCommit<number>(
      async () => {
        runs++;
        throw down;
      },
      () => 'everyone',
    );
    const outcomes = await Promise.allSettled([group.submit([1]), group.submit([2]), group.submit([3])]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason : o.status))).toEqual([down, down, down]);
    expect(runs).toBe(1);
  });

  it('when a lone call fails, then it rejects with its error and is not run again', async () => {
    let runs = 0;
    const group = new GroupCommit<number>(async () => {
      runs++;
      throw new Error('down');
    });
    await expect(group.submit([1])).rejects.toThrow('down');
    expect(runs).toBe(1);
  });
});
