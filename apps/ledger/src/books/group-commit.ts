/**
 * Group commit (decision 353): the partitions' batches of one fetch reach the ledger together, each
 * in its own handler call, and each used to be a database transaction of its own — with its
 * statements, its commit, and a wait on the account locks the others held (a shop's orders are
 * spread over every partition). Calls submitted while a run is under way, or in the same turn of
 * the event loop as the first, are run as one: one transaction for all of them.
 *
 * When the run of a group fails, each call's items are run again alone, one after the other, and
 * each call gets its own outcome: the failure stays with the batch that holds it (a
 * `BatchMessageFailure` names its event, which the transport then dead-letters alone), and the
 * other batches are booked. A run that fails rolls its transaction back, so nothing of it stays.
 * Each partition's order is kept: a partition hands over its next batch only once its last one
 * was answered, and a group runs its calls' items in the order the calls came.
 */
export class GroupCommit<T> {
  private waiting: { items: readonly T[]; done: (err?: unknown) => void }[] = [];
  private draining = false;

  constructor(private readonly run: (items: readonly T[]) => Promise<void>) {}

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
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        const failed = await this.attempt(group.flatMap((g) => g.items));
        if (failed === undefined || group.length === 1) {
          for (const g of group) g.done(failed);
          continue;
        }
        for (const g of group) g.done(await this.attempt(g.items));
      }
    } finally {
      this.draining = false;
    }
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
