import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Topics } from '@payments/contracts';
import { IntervalJob, PaymentsMetrics } from '@payments/platform';
import { LedgerConfig } from '../config';
import { HoldRepository } from '../hold-payouts/hold.repository';
import { PayoutHolds } from '../hold-payouts/payout-holds';
import { RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { RefundHolds } from '../hold-refunds/refund-holds';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { CLOCK, Clock, EVENTS_READ_THROUGH, EventsReadThrough, LEDGER_CONFIG } from '../tokens';

const PURGE_BATCH = 1000;
const NONE = { voided: 0, failed: [] as readonly string[] };

/**
 * Voids the holds whose payout or refund never came to be (decision 277): the requester crashed
 * between the hold and its insert, so no event will ever post or void it. A payout's hold is an
 * orphan when no event of its payout was published within `orphanHoldAfterMs` of the hold; a
 * refund's when its refund was not booked within it. "Within" is counted on the events the ledger
 * has read (decision 357): a hold is only taken once the events consumer has read its topic
 * (`payouts.events`, `orders.events`) through the moment the bound ended, so a ledger stopped or
 * behind never reads its own backlog as silence. Orphans are taken with FOR UPDATE SKIP LOCKED in
 * the transaction that voids them, one hold a transaction, so several instances share the work and
 * none voids one twice.
 * Each run also purges the refusals kept past `holdRefusalKeepMs` (decision 356).
 */
@Injectable()
export class OrphanHoldSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanHoldSweeper.name);
  private readonly job: IntervalJob;
  /** Per topic, the last run that could tell how far it was read (or the first that could not). */
  private readonly told = new Map<string, number>();
  /** Per topic, the latest moment it was found read through (ms since the epoch). */
  private readonly readTo = new Map<string, number>();
  private removeSource?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly payoutHoldRows: HoldRepository,
    private readonly payoutHolds: PayoutHolds,
    private readonly refundHoldRows: RefundHoldRepository,
    private readonly refundHolds: RefundHolds,
    private readonly refusals: HoldRefusalRepository,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVENTS_READ_THROUGH) private readonly readThrough: EventsReadThrough,
  ) {
    this.job = new IntervalJob(
      'orphan hold sweep',
      config.orphanSweepMs,
      () => this.sweep(),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    // Nest runs bootstrap hooks once per part of the app (HTTP and each consumer): start once.
    // Only moments found: an instance that cannot tell exports nothing of that topic, not its start
    // (LedgerEventsNotReadThrough takes the latest moment any instance found).
    this.removeSource ??= PaymentsMetrics.ledgerEventsReadThrough.add(async () =>
      [...this.readTo].map(([topic, at]) => ({ labels: { topic }, value: at / 1000 })),
    );
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.removeSource?.();
    this.removeSource = undefined;
    await this.job.stop();
    await this.readThrough.close();
  }

  /**
   * Voids the orphans older than the bound; answers how many it voided, or fails naming those it
   * could not void after voiding the others.
   */
  async sweep(): Promise<number> {
    try {
      return await this.voidOrphans();
    } finally {
      // On its own: a hold that fails to void does not keep refusals from being purged.
      await this.purgeRefusals();
    }
  }

  private async voidOrphans(): Promise<number> {
    // One after the other: one topic's failed reading does not cut the other's short.
    const payoutsBefore = await this.orphanedBefore(Topics.payoutsEvents);
    const refundsBefore = await this.orphanedBefore(Topics.ordersEvents);
    const payouts = payoutsBefore
      ? await this.voidEach(
          'payout',
          (m, skip) => this.payoutHoldRows.takeOrphan(m, payoutsBefore, skip),
          (m, id) => this.payoutHolds.finish(m, id, 'voided'),
        )
      : NONE;
    const refunds = refundsBefore
      ? await this.voidEach(
          'refund',
          (m, skip) => this.refundHoldRows.takeOrphan(m, refundsBefore, skip),
          (m, id) => this.refundHolds.void(m, id),
        )
      : NONE;
    const failed = [...payouts.failed, ...refunds.failed];
    if (failed.length > 0)
      throw new Error(
        `${failed.length} orphan holds left held, their voids failed: ${failed.slice(0, 20).join(', ')}` +
          (failed.length > 20 ? ', …' : ''),
      );
    return payouts.voided + refunds.voided;
  }

  /**
   * Voids the orphans one transaction each: a hold whose void fails is rolled back alone, logged
   * and left for the next run, and the others are voided; no transaction holds two holds' locks, so
   * the sweep cannot deadlock with a booker across holds. A failure to take one (the database
   * gone) ends the run.
   */
  private async voidEach(
    kind: 'payout' | 'refund',
    take: (m: EntityManager, skip: readonly string[]) => Promise<string | null>,
    voidHold: (m: EntityManager, id: string) => Promise<object | null>,
  ): Promise<{ voided: number; failed: readonly string[] }> {
    const failed: string[] = [];
    let voided = 0;
    for (;;) {
      const hold: { id: string | null } = { id: null };
      try {
        await this.dataSource.transaction(async (m) => {
          hold.id = await take(m, failed);
          // Null: it was not held after all. Never under the lock taken; were it, the same hold
          // would be taken again and again, so it counts as failed.
          if (hold.id && !(await voidHold(m, hold.id))) throw new Error('not voided: it was no longer held');
        });
      } catch (err) {
        if (!hold.id) throw err;
        failed.push(hold.id);
        this.logger.error(`${kind} ${hold.id}: its orphan hold could not be voided: ${(err as Error).message}`);
        continue;
      }
      if (!hold.id) return { voided, failed };
      voided += 1;
      this.logger.warn(`${kind} ${hold.id}: hold voided, no ${kind} came of it`);
    }
  }

  /**
   * Holds created before this are orphans: older than the bound, both by the clock and by what the
   * events consumer has read of `topic`. Null while it cannot tell (not read through any moment
   * yet, Kafka unreadable): those holds wait for a later run.
   */
  private async orphanedBefore(topic: string): Promise<Date | null> {
    const now = this.clock.now().getTime();
    const through = await this.readThrough.through(topic);
    if (!through) {
      // A run or two without an answer is ordinary (a consumer behind, a first reading under load).
      const since = this.told.get(topic) ?? this.told.set(topic, now).get(topic)!;
      if (now - since > this.config.orphanHoldAfterMs)
        this.logger.warn(
          `${topic} not read through since ${new Date(since).toISOString()} (the events consumer behind, ` +
            `or Kafka unreadable): its holds are not swept`,
        );
      return null;
    }
    this.told.set(topic, now);
    this.readTo.set(topic, Math.max(this.readTo.get(topic) ?? 0, through.getTime()));
    // Through an old moment only: a group stuck behind it, still answered with that moment.
    if (now - through.getTime() > 2 * this.config.orphanHoldAfterMs)
      this.logger.warn(
        `${topic} read through only until ${through.toISOString()} (the events consumer behind): ` +
          `holds made since are not swept`,
      );
    return new Date(Math.min(now, through.getTime()) - this.config.orphanHoldAfterMs);
  }

  /**
   * Deletes the refusals kept longer than `holdRefusalKeepMs` (decision 356), batch by batch: no
   * command older than that is handled again, so none will ask for them.
   */
  async purgeRefusals(): Promise<number> {
    let total = 0;
    const before = new Date(this.clock.now().getTime() - this.config.holdRefusalKeepMs);
    for (;;) {
      const purged = await this.refusals.purge(this.dataSource.manager, before, PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) break;
    }
    if (total > 0) this.logger.log(`${total} refused holds' answers purged, kept since before ${before.toISOString()}`);
    return total;
  }
}
