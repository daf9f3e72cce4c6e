/** One high watermark of a partition, and when it was first and last seen at that value. */
interface Mark {
  high: bigint;
  firstSeenMs: number;
  lastSeenMs: number;
}

/** Enough marks for hours of a busy partition at one refresh every few seconds. */
const MAX_MARKS = 2000;

/**
 * When was the message at an offset written? Kafka's admin API answers offsets, not times, so the
 * collector remembers when it saw each high watermark of a partition and interpolates between two
 * marks (the method of Lightbend's kafka-lag-exporter). A message older than the first mark is
 * dated at the first mark: the age is then a lower bound, and it never over-reports.
 */
export class OffsetHistory {
  private readonly marks: Mark[] = [];

  record(high: bigint, nowMs: number): void {
    const last = this.marks[this.marks.length - 1];
    if (last && last.high === high) {
      last.lastSeenMs = nowMs;
      return;
    }
    // A high watermark that went down (topic recreated) starts the history afresh.
    if (last && high < last.high) this.marks.length = 0;
    this.marks.push({ high, firstSeenMs: nowMs, lastSeenMs: nowMs });
    if (this.marks.length > MAX_MARKS) this.marks.shift();
  }

  /** The estimated time (ms) at which the message at `offset` was appended; undefined if not yet seen. */
  writtenAtMs(offset: bigint): number | undefined {
    // The message at `offset` exists from the moment the high watermark passes it.
    const after = this.marks.findIndex((m) => m.high > offset);
    if (after < 0) return undefined;
    if (after === 0) return this.marks[0].firstSeenMs;
    const before = this.marks[after - 1];
    const next = this.marks[after];
    const span = Number(next.high - before.high);
    const share = Number(offset + 1n - before.high) / span;
    return before.lastSeenMs + share * (next.firstSeenMs - before.lastSeenMs);
  }
}

/**
 * Seconds the oldest message a group has not processed has been waiting: 0 when the group is
 * caught up (committed offset at the high watermark).
 */
export function lagSeconds(history: OffsetHistory, committed: bigint, high: bigint, nowMs: number): number {
  if (committed >= high) return 0;
  const writtenAt = history.writtenAtMs(committed);
  return writtenAt === undefined ? 0 : Math.max(0, (nowMs - writtenAt) / 1000);
}
