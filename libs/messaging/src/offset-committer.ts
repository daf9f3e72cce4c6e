import type { Consumer, Offsets, TopicPartitionOffsetAndMetadata } from 'kafkajs';

/**
 * How long a stopping consumer waits for its last commit: kafkajs retries a commit for as long as
 * the consumer runs, and with the broker unreachable that would outlast the pod's grace period.
 * A commit given up on only means those messages come again.
 */
export const SHUTDOWN_COMMIT_MS = 3000;

/** How a commit is sent: through the consumer, or through the batch payload's direct call. */
export type CommitSend = (offsets: Offsets) => Promise<unknown>;

/**
 * Offsets a consumer has finished, committed on an interval instead of after every batch.
 *
 * kafkajs with `autoCommit` commits after every batch it hands over; at low load a batch is one
 * message, so every message cost an OffsetCommit request (a write to the broker's
 * `__consumer_offsets` log) in every consumer it passed through: half of the broker's CPU per order
 * in the bench (docs/decisions.md 244). With `autoCommit: false` the consumer keeps its own
 * position (resolved offsets) and commits only what this class sends: what was finished, at most
 * once per `intervalMs`, and at once when the caller asks (shutdown).
 *
 * What it changes: after a crash or a rebalance, the messages finished in the last interval come
 * again. Every handler already takes a message twice (inbox ids, idempotent commands); only the
 * work is repeated, never its effect. An offset is only ever committed after its message was
 * handled, so nothing is skipped.
 */
export class OffsetCommitter {
  private readonly pending = new Map<string, TopicPartitionOffsetAndMetadata>();
  private lastCommit = Date.now();
  private timer?: NodeJS.Timeout;

  /** `intervalMs` 0: commit after every batch (kafkajs's own behaviour). */
  constructor(readonly intervalMs: number) {}

  /** The message at `offset` is finished: the group may start after it. */
  finished(topic: string, partition: number, offset: string): void {
    this.pending.set(`${topic}\u0000${partition}`, { topic, partition, offset: (BigInt(offset) + 1n).toString() });
  }

  /** Whether the interval has passed since the last commit (always, with interval 0). */
  due(now = Date.now()): boolean {
    return this.pending.size > 0 && now - this.lastCommit >= this.intervalMs;
  }

  /**
   * Sends what is pending in one request. A failed commit keeps its offsets for the next one,
   * unless a later offset of the same partition was finished meanwhile.
   */
  async commit(send: CommitSend): Promise<void> {
    if (this.pending.size === 0) return;
    const sent = [...this.pending.values()];
    this.pending.clear();
    this.lastCommit = Date.now();
    try {
      await send(toOffsets(sent));
    } catch (err) {
      for (const o of sent) {
        const key = `${o.topic}\u0000${o.partition}`;
        if (!this.pending.has(key)) this.pending.set(key, o);
      }
      throw err;
    }
  }

  /** `commit`, waited for at most `ms` and never failing (a stopping consumer's last commit). */
  async commitBefore(send: CommitSend, ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.commit(send).catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }

  /**
   * After a rebalance: forgets partitions this member no longer holds (their new owner commits
   * them; ours would only move its position back).
   */
  keepOnly(assignment: Record<string, number[]>): void {
    for (const [key, o] of this.pending) if (!assignment[o.topic]?.includes(o.partition)) this.pending.delete(key);
  }

  /**
   * Commits through `consumer` whenever the interval passed with offsets pending and no batch came
   * to commit them (the last messages before the traffic stopped), and when a rebalance starts.
   */
  start(consumer: Consumer, onError: (err: unknown) => void): void {
    if (this.intervalMs <= 0) return;
    const flush = () => void this.commit(through(consumer)).catch(onError);
    this.timer = setInterval(() => this.due() && flush(), this.intervalMs);
    this.timer.unref();
    consumer.on(consumer.events.REBALANCING, flush);
    consumer.on(consumer.events.GROUP_JOIN, (e) => this.keepOnly(e.payload.memberAssignment));
  }

  /** Stops the interval; what is pending stays for a last `commit`. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Commits through the consumer's own call (outside a batch: the interval, a shutdown). */
export function through(consumer: Consumer): CommitSend {
  return (o) => consumer.commitOffsets(o.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p }))));
}

function toOffsets(list: TopicPartitionOffsetAndMetadata[]): Offsets {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of list) {
    const partitions = topics.get(topic);
    if (partitions) partitions.push({ partition, offset });
    else topics.set(topic, [{ partition, offset }]);
  }
  return { topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) };
}
