import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { signWithEach } from '@payments/callback-signature';
import { QueueWorker, workerInstanceId } from '@payments/messaging';
import { PaymentsMetrics } from '@payments/platform';
import { AttemptResult, isDelivered, nextRetry } from '@payments/merchant-callbacks-domain';
import { ShopCallbackSettingsRepository } from '../shop-settings/shop-callback-settings.repository';
import { signingSecrets } from '../shop-settings/signing-secrets';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';
import { postCallback } from './callback-sender';
import { ClaimedDelivery, DeliveryRepository } from './delivery.repository';

/** How long a delivery waits for its shop's settings to arrive on `shops.settings`. */
const UNKNOWN_SHOP_PAUSE_MS = 1000;

/**
 * The delivery worker pool, on the shared QueueWorker of libs/messaging. It claims due
 * deliveries up to the free slots (bounded overall and per shop), starts their HTTP calls
 * without waiting for them, and goes back to claiming: a merchant that hangs holds its own slots
 * until the timeout, never the loop or other shops'. Each outcome is recorded in one transaction
 * (attempt log, delivery state); the freed slot runs the loop again, so the next callback of the
 * same object goes out at once.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly worker: QueueWorker<ClaimedDelivery>;
  private readonly removeMetrics: (() => void)[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: DeliveryRepository,
    private readonly shops: ShopCallbackSettingsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {
    this.worker = new QueueWorker<ClaimedDelivery>({
      name: 'delivering callbacks',
      databaseUrl: config.databaseUrl,
      queue: deliveries.work,
      concurrency: config.concurrency,
      workTimeoutMs: config.httpTimeoutMs,
      instanceId: workerInstanceId(),
      clock,
      claim: (r) =>
        deliveries.claimDue(r.now, r.leaseUntil, r.limit, config.perShopConcurrency, r.claimToken, r.claimedBy),
      idOf: (d) => d.id,
      work: (d, claimToken) => this.deliver(d, claimToken),
      pollIntervalMs: config.pollIntervalMs,
      // Rows held back by a busy shop count as due: look again no more often than every 100 ms.
      minIdleMs: 100,
      logger: this.logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.removeMetrics.length === 0) this.reportBacklog();
    await this.worker.start();
  }

  /** The queue's backlog at scrape time: the same for every instance, so dashboards take max(). */
  private reportBacklog(): void {
    let last: ReturnType<DeliveryRepository['backlog']> | undefined;
    const backlog = () => (last ??= this.deliveries.backlog().finally(() => (last = undefined)));
    this.removeMetrics.push(
      PaymentsMetrics.merchantCallbacksPending.add(async () => {
        const b = await backlog();
        return [
          { labels: { state: 'waiting' }, value: b.waiting },
          { labels: { state: 'retrying' }, value: b.retrying },
        ];
      }),
      PaymentsMetrics.merchantCallbacksOldestAge.add(async () => [
        { labels: {}, value: (await backlog()).oldestAgeSeconds },
      ]),
    );
  }

  /** Stops claiming, then lets the calls in flight finish (each ends within its timeout) and be recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const remove of this.removeMetrics.splice(0)) remove();
    await this.worker.stop();
  }

  private async deliver(d: ClaimedDelivery, claimToken: string): Promise<void> {
    try {
      const shop = await this.shops.forShop(d.shopId);
      if (shop.kind === 'unknown' || (shop.kind === 'known' && !shop.callbackSecret)) {
        // The shop's settings (or its secret) have not arrived on shops.settings yet: wait for them, not an attempt.
        await this.waitForShop(d, claimToken);
        return;
      }
      const url = d.urlOverride ?? shop.callbackUrl;
      if (!url) {
        await this.dataSource.transaction(async (m) => {
          if (await this.deliveries.lockClaimed(m, d.id, claimToken))
            await this.deliveries.finish(m, d.id, 'skipped', this.clock.now(), 'the shop has no callback URL');
        });
        this.logger.log(
          `delivery ${d.id} (${d.objectId} #${d.sequence}) skipped: shop ${d.shopId} has no callback URL`,
        );
        return;
      }
      const startedAt = this.clock.now();
      const timestamp = Math.floor(startedAt.getTime() / 1000);
      const result = await postCallback(
        url,
        d.body,
        {
          'content-type': 'application/json',
          'user-agent': 'payments-merchant-callbacks/1',
          'x-event-id': d.eventId,
          'x-signature': signWithEach(
            signingSecrets(this.config.secretKeys, d.shopId, shop, startedAt),
            d.body,
            timestamp,
          ),
        },
        { timeoutMs: this.config.httpTimeoutMs, allowInsecure: this.config.allowInsecureTargets },
      );
      const latencyMs = Math.max(0, this.clock.now().getTime() - startedAt.getTime());
      await this.record(d, claimToken, url, startedAt, latencyMs, result);
    } catch (err) {
      // The row stays claimed; it comes back when its lease runs out.
      this.logger.error(`delivery ${d.id}: ${(err as Error).message}`);
    }
  }

  private async waitForShop(d: ClaimedDelivery, claimToken: string): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (m) => {
      const claim = await this.deliveries.lockClaimed(m, d.id, claimToken);
      if (!claim) return;
      if (now.getTime() - claim.windowStartedAt.getTime() > this.config.retry.windowMs) {
        await this.deliveries.finish(
          m,
          d.id,
          'failed',
          now,
          `no settings of shop ${d.shopId} arrived within the retry window`,
        );
      } else {
        await this.deliveries.reschedule(
          m,
          d.id,
          new Date(now.getTime() + UNKNOWN_SHOP_PAUSE_MS),
          now,
          'waiting for the shop settings',
        );
      }
    });
  }

  /**
   * One transaction: the attempt in the log, then delivered, the next retry, or failed. A 2xx (the
   * usual case) is one statement; the rest need the attempt count and window first.
   */
  private async record(
    d: ClaimedDelivery,
    claimToken: string,
    url: string,
    at: Date,
    latencyMs: number,
    result: AttemptResult,
  ): Promise<void> {
    const now = this.clock.now();
    PaymentsMetrics.merchantCallbackAttempts.inc({
      result: result.kind === 'error' ? 'network_error' : isDelivered(result) ? 'delivered' : 'http_error',
    });
    let summary: string;
    if (result.kind === 'response' && isDelivered(result)) {
      const attempt = await this.deliveries.recordDelivered(
        d.id,
        claimToken,
        { at, url, responseStatus: result.status, latencyMs },
        now,
      );
      summary =
        attempt === null
          ? 'claim lost (lease ran out); not recorded'
          : `delivered (HTTP ${result.status}, ${latencyMs} ms, attempt ${attempt})`;
    } else {
      summary = await this.recordFailure(d, claimToken, url, at, latencyMs, result, now);
    }
    // The URL's path and query may hold a merchant's token: log the origin only. Never the body or secret.
    this.logger.log(`delivery ${d.id} (${d.objectId} #${d.sequence}) to ${new URL(url).origin}: ${summary}`);
  }

  private recordFailure(
    d: ClaimedDelivery,
    claimToken: string,
    url: string,
    at: Date,
    latencyMs: number,
    result: AttemptResult,
    now: Date,
  ): Promise<string> {
    return this.dataSource.transaction(async (m) => {
      const claim = await this.deliveries.lockClaimed(m, d.id, claimToken);
      if (!claim) return 'claim lost (lease ran out); not recorded';
      const attempt = claim.attempts + 1;
      const responseStatus = result.kind === 'response' ? result.status : null;
      const error =
        result.kind === 'error' ? result.reason.slice(0, 500) : isDelivered(result) ? null : `HTTP ${result.status}`;
      await this.deliveries.logAttempt(m, d.id, { attempt, at, url, responseStatus, error, latencyMs });
      if (isDelivered(result)) {
        await this.deliveries.finish(m, d.id, 'delivered', now);
        return `delivered (HTTP ${responseStatus}, ${latencyMs} ms, attempt ${attempt})`;
      }
      const next = nextRetry(this.config.retry, attempt, claim.windowStartedAt, now, Math.random());
      if (next.kind === 'give_up') {
        await this.deliveries.finish(m, d.id, 'failed', now);
        return `failed for good after ${attempt} attempts (${error}); an operator can replay it`;
      }
      await this.deliveries.reschedule(m, d.id, next.at, now);
      return `attempt ${attempt} failed (${error}); next in ${next.delayMs} ms`;
    });
  }
}
