import { Logger } from '@nestjs/common';
import type { Admin } from 'kafkajs';
import type { KafkaConfig } from '@payments/platform';
import { createKafka } from './kafka';

/** A reading of a topic's high watermarks, and when it was taken. */
interface Mark {
  at: number;
  highs: Map<number, bigint>;
}

/** What the marks are compared with: a group's committed offsets and the topic's oldest retained. */
interface Position {
  committed: Map<number, bigint>;
  lows: Map<number, bigint>;
}

/** How many readings are kept: a group more than this many readings behind reads as not through. */
const KEPT_MARKS = 30;

/**
 * Until when a consumer group has read a topic: the latest moment `t` such that every message the
 * topic held at `t` has been committed by the group (decision 357). A job that acts on "no message
 * came" (the ledger's orphan-hold sweep) asks this first, so a consumer stopped or behind is never
 * read as silence.
 *
 * Each `through()` takes the topic's high watermarks (a mark), then the group's committed offsets,
 * and answers the time of the latest mark the group has committed past on every partition; an
 * empty partition (high = oldest retained) is read through. Offsets are only committed after
 * their messages were handled (OffsetCommitter), so a committed offset is a handled one. Marks are
 * kept across calls: a group under steady load, always a few messages behind the newest mark, is
 * through the one before it. `null` when no mark is passed yet, or Kafka cannot be read: the
 * caller waits, it never guesses.
 */
export class ReadThrough {
  private readonly logger = new Logger(ReadThrough.name);
  private readonly marks = new Map<string, Mark[]>();
  private admin?: Admin;
  private connecting?: Promise<Admin>;
  private failures = 0;

  constructor(
    private readonly kafka: KafkaConfig,
    /** The group's name as configured (without the topic prefix). */
    private readonly groupId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The moment `topic` (a contract name) was read through by the group, or null (see the class). */
  async through(topic: string): Promise<Date | null> {
    try {
      const admin = await this.connected();
      const name = this.kafka.topicPrefix + topic;
      const at = this.now().getTime();
      const watermarks = await admin.fetchTopicOffsets(name);
      const [committed] = await admin.fetchOffsets({ groupId: this.kafka.topicPrefix + this.groupId, topics: [name] });
      const marks = this.marksOf(name);
      marks.push({ at, highs: new Map(watermarks.map((w) => [w.partition, BigInt(w.high)])) });
      const position: Position = {
        committed: new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)])),
        lows: new Map(watermarks.map((w) => [w.partition, BigInt(w.low)])),
      };
      const passed = latestPassed(marks, position);
      const answer = passed >= 0 ? new Date(marks[passed].at) : null;
      // Older marks than the one passed can never be the answer again.
      if (passed > 0) marks.splice(0, passed);
      if (marks.length > KEPT_MARKS) marks.splice(0, marks.length - KEPT_MARKS);
      if (this.failures > 0) this.logger.log(`reading ${topic}'s offsets again after ${this.failures} failed tries`);
      this.failures = 0;
      return answer;
    } catch (err) {
      if (this.failures++ % 10 === 0)
        this.logger.warn(`cannot tell how far ${this.groupId} has read ${topic}: ${(err as Error).message}`);
      await this.disconnect();
      return null;
    }
  }

  async close(): Promise<void> {
    await this.disconnect();
  }

  private marksOf(topic: string): Mark[] {
    let marks = this.marks.get(topic);
    if (!marks) this.marks.set(topic, (marks = []));
    return marks;
  }

  private async connected(): Promise<Admin> {
    if (this.admin) return this.admin;
    this.connecting ??= (async () => {
      const admin = createKafka(this.kafka, '-read-through').admin();
      try {
        await admin.connect();
      } finally {
        this.connecting = undefined;
      }
      return (this.admin = admin);
    })();
    return this.connecting;
  }

  private async disconnect(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect().catch(() => undefined);
  }
}

/** The index of the latest mark every partition of which the position has passed, or -1. */
export function latestPassed(marks: readonly Mark[], position: Position): number {
  for (let i = marks.length - 1; i >= 0; i--) if (passedMark(marks[i], position)) return i;
  return -1;
}

function passedMark(mark: Mark, { committed, lows }: Position): boolean {
  for (const [partition, high] of mark.highs) {
    const low = lows.get(partition) ?? 0n;
    // Everything it held then is gone from the log (retention) or was never there.
    if (high <= low) continue;
    const offset = committed.get(partition) ?? -1n;
    if (offset < high) return false;
  }
  return true;
}
