import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { IdempotencyRepository } from './idempotency.repository';

/** Deletes idempotency records past their retention (IDEMPOTENCY_RETENTION_HOURS, at least 24). */
@Injectable()
export class IdempotencyPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPurge');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly records: IdempotencyRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.idempotency.purgeIntervalMs;
    if (every <= 0 || this.timer) return; // started once, whatever calls the hook again
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.purge(new Date())
        .catch((err: unknown) => {
          this.logger.warn(
            `purge failed, next run in ${every} ms: ${err instanceof Error ? err.message : String(err)}`,
          );
          return 0;
        })
        .finally(() => (this.running = undefined));
    }, every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes the records created before `now` minus the retention; returns how many. */
  purge(now: Date): Promise<number> {
    return this.records.purge(now, this.config.idempotency.retentionHours);
  }
}
