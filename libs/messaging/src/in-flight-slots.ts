/** Bounds how many messages are handled at once across all partitions (KafkaTransport's maxInFlight). */
export class InFlightSlots {
  private inFlight = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly max: number) {}

  acquire(): Promise<void> {
    if (this.inFlight < this.max) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands the slot straight to the next waiter, or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.inFlight -= 1;
  }
}
