import { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { NotifiedWorker } from './notified-worker';
import type { ClaimRequest, WorkQueue } from './work-queue';

export interface QueueWorkerOptions<T> {
  /** Names the worker in its log lines. */
  name: string;
  databaseUrl: string;
  queue: WorkQueue<unknown>;
  /** Items this instance works at once; a slot is claimed again as soon as it frees. */
  concurrency: number;
  /** The longest one item's work may take (its HTTP timeout); the lease adds a margin to it. */
  workTimeoutMs: number;
  /** Names this instance in `claimed_by`, for operators. */
  instanceId: string;
  clock: { now(): Date };
  /** Claims through the owner's repository, which turns rows into its items (and adds its per-group limit). */
  claim(r: ClaimRequest): Promise<T[]>;
  idOf(item: T): string;
  /**
   * Works one item and records its outcome under `lockClaimed`. An error leaves the item claimed:
   * it comes back when its lease runs out. `release` (optional to call) gives the item's slot back
   * before the work ends — its outside call is over and only its record is left — so the loop can
   * claim the next item meanwhile; the item still counts against `maxUnrecorded`.
   */
  work(item: T, claimToken: string, release: () => void): Promise<void>;
  /**
   * The most items this instance holds at once, released ones that are still being recorded
   * included (default: `concurrency`, i.e. releasing frees nothing). Bounds what waits for the
   * database when it is slow.
   */
  maxUnrecorded?: number;
  /** Look for due items at least this often: other instances' items, and a wake-up that was missed. */
  pollIntervalMs: number;
  /** The shortest sleep when items are due but none could be taken (their group's slots are busy). */
  minIdleMs: number;
  logger: LoggerService;
}

/**
 * A claimed item comes back to the queue this long after its work should have ended: time to
 * record the outcome of work that ended at its timeout, on a loaded machine.
 */
const LEASE_MARGIN_MS = 30_000;

/**
 * The worker pool of a `WorkQueue`. It claims what its free slots allow, starts the work without
 * waiting for it and goes back to claiming: an item that hangs holds its own slot until its
 * timeout, never the loop or the other items. An item may give its slot back once its outside
 * call is over (`release`), within `maxUnrecorded` items held at once. A freed slot, and work queued in this process
 * (`WorkQueue.wake`), run the loop again at once; otherwise it sleeps until the next item falls
 * due or the poll interval has passed.
 */
export class QueueWorker<T> {
  private readonly loop: NotifiedWorker;
  /** Every item claimed and not yet worked to the end (stop() waits for them). */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** The items holding a slot: claimed and not released. */
  private readonly busy = new Set<string>();

  constructor(private readonly o: QueueWorkerOptions<T>) {
    this.loop = new NotifiedWorker({
      name: o.name,
      databaseUrl: o.databaseUrl,
      channel: o.queue.t.channel,
      round: () => this.round(),
      idleDelayMs: () => this.idleDelayMs(),
      logger: o.logger,
    });
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  /** Stops claiming, then lets the work in flight end (each within its timeout) and be recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Claims what the free slots allow and works those items to the end; answers how many it claimed. */
  async workDue(): Promise<number> {
    const started = await this.claimAndStart(this.free());
    await Promise.all(started);
    return started.length;
  }

  /** Slots free for claiming: those not busy, within the bound on items held at once. */
  private free(): number {
    const held = Math.max(this.o.maxUnrecorded ?? this.o.concurrency, this.o.concurrency);
    return Math.min(this.o.concurrency - this.busy.size, held - this.inFlight.size);
  }

  /** Answers true when every free slot was filled and slots remain: more may be waiting. */
  private async round(): Promise<boolean> {
    const free = this.free();
    if (free <= 0) return false;
    const started = await this.claimAndStart(free);
    return started.length === free && this.free() > 0;
  }

  private async claimAndStart(free: number): Promise<Promise<void>[]> {
    if (free <= 0) return [];
    const now = this.o.clock.now();
    const claimToken = randomUUID();
    const items = await this.o.claim({
      now,
      leaseUntil: new Date(now.getTime() + this.o.workTimeoutMs + LEASE_MARGIN_MS),
      limit: free,
      claimToken,
      claimedBy: this.o.instanceId,
    });
    return items.map((item) => {
      const id = this.o.idOf(item);
      this.busy.add(id);
      const release = () => {
        if (this.busy.delete(id)) this.loop.poke();
      };
      const run = this.o
        .work(item, claimToken, release)
        .catch((err: unknown) => this.o.logger.error(`${this.o.name}: ${id}: ${(err as Error).message}`))
        .finally(() => {
          this.busy.delete(id);
          this.inFlight.delete(id);
          this.loop.poke();
        });
      this.inFlight.set(id, run);
      return run;
    });
  }

  private async idleDelayMs(): Promise<number> {
    const poll = this.o.pollIntervalMs;
    if (this.free() <= 0) return poll;
    const next = await this.o.queue.nextDueAt();
    if (!next) return poll;
    return Math.max(Math.min(poll, this.o.minIdleMs), Math.min(poll, next.getTime() - this.o.clock.now().getTime()));
  }
}

/** A name for this process's worker, unique across restarts: `<host>-<pid>-<random>`. */
export function workerInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}
