import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Outbox } from '@payments/messaging';
import { expireOrder } from '@payments/orders-domain';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { OrderRepository } from '../order.repository';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

/**
 * Fails payment orders that got no terminal provider response before their processing deadline
 * (7 days by default; spec section 3). Safe with several orders instances: each due order is
 * claimed with FOR UPDATE SKIP LOCKED and re-checked under the lock, so it is failed once.
 */
@Injectable()
export class ProcessingTimeoutSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ProcessingTimeoutSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  onApplicationBootstrap(): void {
    // A hybrid app (HTTP + the Kafka microservice) runs bootstrap hooks once per part: start once,
    // or the first interval would outlive the app.
    if (this.config.sweepIntervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep(this.clock.now())
        .catch((err: Error) => {
          this.logger.warn(`sweep failed: ${err.message}`);
          return 0;
        })
        .finally(() => (this.running = undefined));
    }, this.config.sweepIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Fails every order due at `now`, in batches; returns how many it failed. */
  async sweep(now: Date, batchSize = 200): Promise<number> {
    let total = await this.sweepExpiredLinks(now, batchSize);
    for (;;) {
      const failed = await this.dataSource.transaction(async (m) => {
        const due = await this.orders.claimExpired(m, now, batchSize);
        let n = 0;
        for (const order of due) {
          const result = expireOrder(order, now);
          if (result.kind !== 'transition') continue;
          await applyTransition(this.outbox, m, order, { ...result, needActionReason: null }, now);
          n += 1;
        }
        return { n, claimed: due.length };
      });
      total += failed.n;
      if (failed.claimed < batchSize) break;
    }
    if (total > 0) this.logger.log(`${total} order(s) failed by the processing timeout`);
    return total;
  }

  /**
   * Fails hosted orders whose link expired with no payment submitted (1-07-08, retry allowed):
   * the merchant gets the callback. A link paid in time is the dispatcher's, not ours.
   */
  async sweepExpiredLinks(now: Date, batchSize = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.dataSource.transaction(async (m) => {
        const due = await this.orders.claimExpiredLinks(m, now, batchSize);
        for (const order of due)
          await applyTransition(this.outbox, m, order, { status: 'failed', statusCode: '1-07-08' }, now);
        return due.length;
      });
      total += claimed;
      if (claimed < batchSize) break;
    }
    if (total > 0) this.logger.log(`${total} hosted order(s) failed: payment link expired`);
    return total;
  }
}
