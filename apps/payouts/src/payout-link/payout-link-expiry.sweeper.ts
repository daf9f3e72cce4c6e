import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, Clock, IntervalJob } from '@payments/platform';
import { TransferWrites } from '@payments/transfers';
import { PayoutEntity } from '../payout.entity';

/** How often the payouts service looks for expired payout links (PAYOUT_LINK_SWEEP_INTERVAL_MS; 0: never). */
const DEFAULT_INTERVAL_MS = 5_000;

/**
 * Cancels payouts via payment page whose link expired before the recipient gave the details
 * (1-07-09, retry allowed): the status event becomes the merchant's signed callback. A link
 * submitted in time is the dispatcher's, not ours. Rows are claimed with SKIP LOCKED, so two
 * instances never cancel one payout twice.
 */
@Injectable()
export class PayoutLinkExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PayoutLinkExpirySweeper.name);
  private readonly job: IntervalJob;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writes: TransferWrites,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const every = Number(process.env.PAYOUT_LINK_SWEEP_INTERVAL_MS ?? DEFAULT_INTERVAL_MS);
    this.job = new IntervalJob(
      'payout link expiry sweep',
      Number.isFinite(every) ? every : DEFAULT_INTERVAL_MS,
      () => this.sweep(this.clock.now()),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  async sweep(now: Date, batchSize = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.dataSource.transaction(async (m) => {
        const due = await m
          .getRepository(PayoutEntity)
          .createQueryBuilder('p')
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          .where("p.status = 'registered'")
          .andWhere('p.link_hash IS NOT NULL')
          .andWhere('p.link_used_at IS NULL')
          .andWhere('p.link_expires_at <= :now', { now })
          .orderBy('p.link_expires_at')
          .limit(batchSize)
          .getMany();
        for (const p of due)
          await this.writes.transition(
            m,
            p,
            { status: 'cancelled', statusCode: '1-07-09', needActionReason: null },
            now,
          );
        return due.length;
      });
      total += claimed;
      if (claimed < batchSize) break;
    }
    if (total > 0) this.logger.log(`${total} payout(s) cancelled: payout link expired`);
    return total;
  }
}
