import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IntervalJob } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { IdempotencyRepository } from '@payments/merchant-admin';

/** Deletes idempotency records past their retention (IDEMPOTENCY_RETENTION_HOURS, at least 24). */
@Injectable()
export class IdempotencyPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPurge');
  private readonly job: IntervalJob;

  constructor(
    private readonly records: IdempotencyRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.job = new IntervalJob(
      'purge',
      config.idempotency.purgeIntervalMs,
      () => this.purge(new Date()),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** Deletes the records created before `now` minus the retention; returns how many. */
  purge(now: Date): Promise<number> {
    return this.records.purge(now, this.config.idempotency.retentionHours);
  }
}
