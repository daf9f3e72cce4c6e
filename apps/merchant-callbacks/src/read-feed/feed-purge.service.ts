import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IntervalJob } from '@payments/platform';
import { FeedRepository } from './feed.repository';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

const DAY_MS = 86_400_000;
const BATCH = 1000;

/**
 * Keeps the feed (and so the delivery log) for MERCHANT_CALLBACKS_FEED_RETENTION_DAYS, at least
 * 30: older deliveries that are no longer pending are deleted, in batches, every
 * MERCHANT_CALLBACKS_PURGE_INTERVAL_MS (decision 103).
 */
@Injectable()
export class FeedPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FeedPurge');
  private readonly job: IntervalJob;

  constructor(
    private readonly deliveries: FeedRepository,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'purge',
      config.feed.purgeIntervalMs,
      () => this.purge(this.clock.now()),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** Deletes what is past the retention at `now`; answers how many deliveries went. */
  async purge(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.config.feed.retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const n = await this.deliveries.purge(before, BATCH);
      total += n;
      if (n < BATCH) break;
    }
    if (total > 0) this.logger.log(`${total} deliveries older than ${before.toISOString()} purged`);
    return total;
  }
}
