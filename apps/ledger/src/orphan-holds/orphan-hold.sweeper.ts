import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IntervalJob } from '@payments/platform';
import { LedgerConfig } from '../config';
import { HoldRepository } from '../hold-payouts/hold.repository';
import { PayoutHolds } from '../hold-payouts/payout-holds';
import { RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { RefundHolds } from '../hold-refunds/refund-holds';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { CLOCK, Clock, LEDGER_CONFIG } from '../tokens';

const BATCH = 100;
const PURGE_BATCH = 1000;

/**
 * Voids the holds whose payout or refund never came to be (decision 277): the requester crashed
 * between the hold and its insert, so no event will ever post or void it. A payout's hold is an
 * orphan when no event of its payout arrived within `orphanHoldAfterMs`; a refund's when its
 * refund was not booked within it. Orphans are taken with FOR UPDATE SKIP LOCKED in the
 * transaction that voids them, so several instances share the work and none voids one twice.
 * Each run also purges the refusals kept past `holdRefusalKeepMs` (decision 356).
 */
@Injectable()
export class OrphanHoldSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanHoldSweeper.name);
  private readonly job: IntervalJob;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly payoutHoldRows: HoldRepository,
    private readonly payoutHolds: PayoutHolds,
    private readonly refundHoldRows: RefundHoldRepository,
    private readonly refundHolds: RefundHolds,
    private readonly refusals: HoldRefusalRepository,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'orphan hold sweep',
      config.orphanSweepMs,
      () => this.sweep(),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** Voids the orphans older than the bound, batch by batch; answers how many it voided. */
  async sweep(): Promise<number> {
    try {
      return await this.voidOrphans();
    } finally {
      // On its own: a hold that fails to void does not keep refusals from being purged.
      await this.purgeRefusals();
    }
  }

  private async voidOrphans(): Promise<number> {
    let total = 0;
    for (;;) {
      const before = new Date(this.clock.now().getTime() - this.config.orphanHoldAfterMs);
      const voided = await this.dataSource.transaction(async (m) => {
        const payouts = await this.payoutHoldRows.takeOrphans(m, before, BATCH);
        for (const id of payouts) await this.payoutHolds.finish(m, id, 'voided');
        const refunds = await this.refundHoldRows.takeOrphans(m, before, BATCH);
        for (const id of refunds) await this.refundHolds.void(m, id);
        for (const id of payouts) this.logger.warn(`payout ${id}: hold voided, no payout came of it`);
        for (const id of refunds) this.logger.warn(`refund ${id}: hold voided, no refund came of it`);
        return { payouts: payouts.length, refunds: refunds.length };
      });
      total += voided.payouts + voided.refunds;
      if (voided.payouts < BATCH && voided.refunds < BATCH) break;
    }
    return total;
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
