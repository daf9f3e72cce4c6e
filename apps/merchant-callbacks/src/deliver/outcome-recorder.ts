import { LoggerService } from '@nestjs/common';

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
  /** Tries of a batch before its outcomes fail (a deadlock or a lost connection is worth another). */
  tries: number;
  logger: LoggerService;
}

/**
 * Group commit for delivery outcomes (decision 200): an outcome is written at once when a
 * writer is free; outcomes that arrive while every writer is busy wait and go together in the
 * next write. Unloaded that is one outcome per write, as before; under load one write records as
 * many as finished meanwhile, without a timer adding latency. Writes at once touch different
 * objects (an object has one delivery in flight), so they do not wait for each other.
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
    void this.writeWithRetry(batch.map((w) => w.outcome))
      .then(
        (recorded) => {
          for (const w of batch) w.resolve(recorded.has(this.o.idOf(w.outcome)));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err as Error);
        },
      )
      .finally(() => {
        this.writing--;
        this.next();
      });
  }

  private async writeWithRetry(batch: O[]): Promise<Set<string>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.o.write(batch);
      } catch (err) {
        if (attempt >= this.o.tries) throw err;
        this.o.logger.warn(`recording ${batch.length} outcomes failed, trying again: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }
}
