import { Logger } from '@nestjs/common';
import { Admin, Kafka } from 'kafkajs';
import type { KafkaConfig } from '@payments/platform';
import { kafkaClientOptions } from './kafka';

/** A reading of a topic's high watermarks, and when it was taken. */
export interface Mark {
  at: number;
  highs: ReadonlyMap<number, bigint>;
}

/** What the marks are compared with: a group's committed offsets and the topic's oldest retained. */
export interface Position {
  committed: ReadonlyMap<number, bigint>;
  lows: ReadonlyMap<number, bigint>;
}

/** How many marks are kept, and how far apart at least: together the span a group may lag by. */
const KEPT_MARKS = 30;
const MARK_SPACING_MS = 1000;
/** How long one reading may take before it is given up as "cannot tell". */
const READING_TIMEOUT_MS = 10_000;

/**
 * The marks of one topic, kept between readings. A new reading is answered against the kept marks
 * and itself; it is kept only when the last kept is at least a second older (and at most 30 are
 * kept, the oldest dropped), so a sweep run every 100 ms and one run every minute both keep a span
 * a group under steady load stays within.
 */
export class MarkBook {
  private readonly marks: Mark[] = [];

  /** Adds `mark` (taken before `position` was read); answers the latest moment passed, or null. */
  record(mark: Mark, position: Position): Date | null {
    if (passedMark(mark, position)) {
      // Through the newest reading: no older one can be the answer again.
      this.marks.splice(0, this.marks.length, mark);
      return new Date(mark.at);
    }
    const last = this.marks[this.marks.length - 1];
    if (!last || mark.at - last.at >= MARK_SPACING_MS) this.marks.push(mark);
    const passed = latestPassed(this.marks, position);
    const answer = passed >= 0 ? new Date(this.marks[passed].at) : null;
    // Marks older than the one passed can never be the answer again.
    if (passed > 0) this.marks.splice(0, passed);
    if (this.marks.length > KEPT_MARKS) this.marks.splice(0, this.marks.length - KEPT_MARKS);
    return answer;
  }

  /** The moments of the marks kept, oldest first. */
  kept(): number[] {
    return this.marks.map((m) => m.at);
  }
}

/**
 * Until when a consumer group has read a topic: the latest moment `t` such that every message the
 * topic held at `t` has been committed by the group (decision 357). A job that acts on "no message
 * came" (the ledger's orphan-hold sweep) asks this first, so a consumer stopped or behind is never
 * read as silence.
 *
 * Each `through()` takes the time, the topic's partitions (a metadata request, never the cache: a
 * partition added since would otherwise be left out of the reading), its high watermarks (a mark),
 * then the group's committed offsets, and answers the time of the latest mark the group has
 * committed past on every partition (`MarkBook`); an empty partition (high = oldest retained) is
 * read through. Offsets are only committed after their messages were handled or dead-lettered
 * (OffsetCommitter), so a committed offset is a message done with. `null` when no mark is passed
 * yet, or the reading fails or takes longer than 10 s: the caller waits, it never guesses.
 */
export class ReadThrough {
  private readonly logger = new Logger(ReadThrough.name);
  private readonly books = new Map<string, MarkBook>();
  private readonly failures = new Map<string, number>();
  private admin?: Admin;
  private connecting?: Promise<Admin>;

  constructor(
    private readonly kafka: KafkaConfig,
    /** The group's name as configured (without the topic prefix). */
    private readonly groupId: string,
    private readonly now: () => Date = () => new Date(),
    private readonly timeoutMs = READING_TIMEOUT_MS,
    // The time limit is what bounds a reading; requests are bounded by it too, and the admin's
    // own retries are few (a reading that cannot be had soon is worth less than the next run's).
    private readonly createAdmin: () => Admin = () =>
      new Kafka({ ...kafkaClientOptions(kafka, '-read-through'), requestTimeout: timeoutMs }).admin({
        retry: { retries: 2 },
      }),
  ) {}

  /** The moment `topic` (a contract name) was read through by the group, or null (see the class). */
  async through(topic: string): Promise<Date | null> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
      timer.unref();
    });
    try {
      const answer = await Promise.race([this.read(topic), timedOut]);
      if (answer === 'timeout') throw new Error(`no answer within ${this.timeoutMs} ms`);
      const failed = this.failures.get(topic) ?? 0;
      if (failed > 0) this.logger.log(`reading ${topic}'s offsets again after ${failed} failed tries`);
      this.failures.delete(topic);
      return answer;
    } catch (err) {
      const failed = this.failures.get(topic) ?? 0;
      this.failures.set(topic, failed + 1);
      if (failed % 10 === 0)
        this.logger.warn(`cannot tell how far ${this.groupId} has read ${topic}: ${(err as Error).message}`);
      // A new client next time (fresh metadata). This one is dropped without waiting for what it
      // has in flight: a reading that timed out must not hold the caller (a stopping service).
      this.drop();
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect().catch(() => undefined);
  }

  private async read(topic: string): Promise<Date | null> {
    const admin = await this.connected();
    /** A reading given up on (timed out) stops at its next step, on a client no one owns. */
    const owned = <T>(value: T): T => {
      if (this.admin !== admin) throw new Error('given up: the reading timed out');
      return value;
    };
    const name = this.kafka.topicPrefix + topic;
    const at = this.now().getTime();
    const { topics } = owned(await admin.fetchTopicMetadata({ topics: [name] }));
    const watermarks = owned(await admin.fetchTopicOffsets(name));
    const known = new Set(watermarks.map((w) => w.partition));
    const unknown = (topics[0]?.partitions ?? []).filter((p) => !known.has(p.partitionId));
    if (unknown.length > 0)
      throw new Error(`partitions ${unknown.map((p) => p.partitionId).join(', ')} have no offsets yet`);
    const [committed] = owned(
      await admin.fetchOffsets({ groupId: this.kafka.topicPrefix + this.groupId, topics: [name] }),
    );
    let book = this.books.get(name);
    if (!book) this.books.set(name, (book = new MarkBook()));
    return book.record(
      { at, highs: new Map(watermarks.map((w) => [w.partition, BigInt(w.high)])) },
      {
        committed: new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)])),
        lows: new Map(watermarks.map((w) => [w.partition, BigInt(w.low)])),
      },
    );
  }

  private async connected(): Promise<Admin> {
    if (this.admin) return this.admin;
    this.connecting ??= (async () => {
      const admin = this.createAdmin();
      try {
        await admin.connect();
      } finally {
        this.connecting = undefined;
      }
      return (this.admin = admin);
    })();
    return this.connecting;
  }

  private drop(): void {
    const admin = this.admin;
    this.admin = undefined;
    void admin?.disconnect().catch(() => undefined);
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
