/** Whose failure a group's is: see GroupCommit. */
export type Blame<T> = 'everyone' | 'unknown' | ((item: T) => boolean);

type Call<T> = { items: readonly T[]; done: (err?: unknown) => void };

/**
 * Group commit (decision 353): the partitions' batches of one fetch reach the ledger together, each
 * in its own handler call, and each used to be a database transaction of its own — with its
 * statements, its commit, and a wait on the account locks the others held (a shop's orders are
 * spread over every partition). Calls submitted while a run is under way, or in the same turn of
 * the event loop as the first, are run as one: one transaction for all of them.
 *
 * When the run of a group fails, `blame` says whose failure it is (a run that fails rolls its
 * transaction back, so nothing of it stays):
 * - `everyone`: a fault of the database or the broker; every call gets the error at once, and the
 *   transport retries each batch until it is back (running them one by one would only fail N times
 *   more);
 * - a predicate on the items: the failure names one of them (a `BatchMessageFailure`); the call
 *   that holds it gets the error (the transport dead-letters that message when it can never be
 *   booked, or retries it, and hands the rest of its batch over again), and the other calls are
 *   run again as a group;
 * - `unknown`: each call's items are run again alone, one after the other, and each call gets its
 *   own outcome.
 * Each partition's order is kept: a partition hands over its next batch only once its last one
 * was answered, and a group runs its calls' items in the order the calls came.
 */
export class GroupCommit<T> {
  private waiting: Call<T>[] = [];
  private draining = false;

  constructor(
    private readonly run: (items: readonly T[]) => Promise<void>,
    private readonly blame: (err: unknown) => Blame<T> = () => 'unknown',
  ) {}

  /** Resolves once `items` were run (alone or in a group) and committed; rejects with the error of its own run. */
  submit(items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ items, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.draining) return;
      this.draining = true;
      // The other partitions' batches of the same fetch are handed over in this turn.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.runGroup(this.waiting.splice(0));
    } finally {
      this.draining = false;
    }
  }

  private async runGroup(group: Call<T>[]): Promise<void> {
    const failed = await this.attempt(group.flatMap((g) => g.items));
    if (failed === undefined || group.length === 1) {
      for (const g of group) g.done(failed);
      return;
    }
    const blamed = this.blame(failed);
    if (blamed === 'everyone') {
      for (const g of group) g.done(failed);
      return;
    }
    const holder = blamed === 'unknown' ? undefined : group.find((g) => g.items.some(blamed));
    if (holder === undefined) {
      for (const g of group) g.done(await this.attempt(g.items));
      return;
    }
    holder.done(failed);
    const others = group.filter((g) => g !== holder);
    if (others.length > 0) await this.runGroup(others);
  }

  /** Runs `items`; answers the error it failed with, or undefined. */
  private async attempt(items: readonly T[]): Promise<unknown> {
    try {
      await this.run(items);
      return undefined;
    } catch (err) {
      return err ?? new Error('group commit: the run failed without an error');
    }
  }
}
