import { LoggerService } from '@nestjs/common';
import { isInfrastructureFault } from '@payments/platform';

interface Waiting<O> {
  outcome: O;
  resolve: (recorded: boolean) => void;
  reject: (err: Error) => void;
}

export interface OutcomeRecorderOptions<O> {
  /** Records a batch at once (one statement); answers which of them were recorded (their claim held). */
  write(batch: readonly O[]): Promise<Set<string>>;
  idOf(outcome: O): string;
  /** The most outcomes one write records. */
  maxBatch: number;
  /** Writes at once: a write waiting for a row lock or the CPU does not hold up the outcomes after it. */
  writers: number;
  /** Tries of a single outcome whose write fails for a reason other than the database being away. */
  tries: number;
  /**
   * How long a write failing because the database is away (or broke a deadlock) is tried again,
   * with backoff: keep it well below the lease margin, or the outcomes are sent again meanwhile.
   */
  retryForMs: number;
  logger: LoggerService;
  /** Whether a failure is the database's rather than the batch's (default: `isInfrastructureFault`). */
  isTransient?: (err: unknown) => boolean;
}

/** The longest pause between two tries of a write while the database is away. */
const MAX_BACKOFF_MS = 2000;

/**
 * Group commit for delivery outcomes (decision 200): an outcome is written at once when a
 * writer is free; outcomes that arrive while every writer is busy wait and go together in the
 * next write. Unloaded that is one outcome per write, as before; under load one write records as
 * many as finished meanwhile, without a timer adding latency. Writes at once touch different
 * objects (an object has one delivery in flight), so they do not wait for each other.
 *
 * A write that fails because the database is away is tried again with backoff for up to
 * `retryForMs`; one that fails for another reason is split in halves down to single outcomes,
 * so one outcome the database refuses does not fail the others of its batch (decision 202).
 */
export class OutcomeRecorder<O> {
  private readonly queue: Waiting<O>[] = [];
  private writing = 0;

  constructor(private readonly o: OutcomeRecorderOptions<O>) {}

  /** Answers true when recorded, false when the claim was lost meanwhile (its lease ran out). */
  record(outcome: O): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      this.next();
    });
  }

  /** Starts a write of what waits, unless every writer is busy (one that ends starts the next). */
  private next(): void {
    if (this.writing >= this.o.writers || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.o.maxBatch);
    this.writing++;
    void this.settle(batch).finally(() => {
      this.writing--;
      this.next();
    });
  }

  /** Writes a batch and answers each of its outcomes; never rejects. */
  private async settle(batch: Waiting<O>[]): Promise<void> {
    try {
      const recorded = await this.writeWithRetry(batch.map((w) => w.outcome));
      for (const w of batch) w.resolve(recorded.has(this.o.idOf(w.outcome)));
    } catch (err) {
      if (batch.length > 1 && !this.transient(err)) {
        // Nothing of the batch committed: one of its outcomes may be what the database refuses.
        this.o.logger.warn(
          `recording ${batch.length} outcomes failed, recording them in halves: ${(err as Error).message}`,
        );
        const half = Math.ceil(batch.length / 2);
        await this.settle(batch.slice(0, half));
        await this.settle(batch.slice(half));
        return;
      }
      for (const w of batch) w.reject(err as Error);
    }
  }

  private transient(err: unknown): boolean {
    return (this.o.isTransient ?? isInfrastructureFault)(err);
  }

  private async writeWithRetry(batch: O[]): Promise<Set<string>> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.o.write(batch);
      } catch (err) {
        const delay = Math.min(MAX_BACKOFF_MS, 50 * 2 ** (attempt - 1));
        if (this.transient(err)) {
          if (Date.now() - started + delay > this.o.retryForMs) throw err;
        } else if (batch.length > 1 || attempt >= this.o.tries) {
          throw err;
        }
        this.o.logger.warn(`recording ${batch.length} outcomes failed, trying again: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
