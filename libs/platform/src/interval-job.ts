/**
 * Background work on an interval, one run at a time: a run still going when the next tick comes
 * skips that tick, a failed run is logged and the next tick tries again, and `stop` waits for the
 * run in flight. The timer never keeps the process alive. (The purges of idempotency records and
 * of the events feed run on it.)
 */
export class IntervalJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly what: string,
    private readonly everyMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly warn: (line: string) => void,
  ) {}

  /** Starts ticking; `everyMs` <= 0 turns the job off. Started once, whatever calls it again. */
  start(): void {
    if (this.everyMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.work()
        .then(
          () => undefined,
          (err: unknown) =>
            this.warn(
              `${this.what} failed, next run in ${this.everyMs} ms: ${err instanceof Error ? err.message : String(err)}`,
            ),
        )
        .finally(() => (this.running = undefined));
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
