import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { sign } from '@payments/callback-signature';
import { NotifiedWorker } from '@payments/messaging';
import { AttemptResult, isDelivered, nextRetry } from '@payments/merchant-callbacks-domain';
import { ShopCallbackSettingsRepository } from '../shop-settings/shop-callback-settings.repository';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';
import { postCallback } from './callback-sender';
import { ClaimedDelivery, deliveryChannel, DeliveryRepository } from './delivery.repository';

/** A claimed delivery comes back to the queue this long after its HTTP call should have ended. */
const LEASE_MARGIN_MS = 30_000;
/** How long a delivery waits for its shop's settings to arrive on `shops.settings`. */
const UNKNOWN_SHOP_PAUSE_MS = 1000;

/**
 * The delivery worker pool. It claims due deliveries up to the free slots (bounded overall and
 * per shop), starts their HTTP calls without waiting for them, and goes back to claiming: a
 * merchant that hangs holds its own slots until the timeout, never the loop or other shops'.
 * Each outcome is recorded in one transaction (attempt log, delivery state) whose commit wakes
 * the loop, so a freed slot or the next callback of the same object goes out at once.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly worker: NotifiedWorker;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly instanceId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: DeliveryRepository,
    private readonly shops: ShopCallbackSettingsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {
    this.worker = new NotifiedWorker({
      name: 'delivering callbacks',
      databaseUrl: config.databaseUrl,
      channel: deliveryChannel(config.schema),
      round: () => this.round(),
      idleDelayMs: () => this.untilNextDue(),
      logger: this.logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.worker.start();
  }

  /** Stops claiming, then lets the calls in flight finish (each ends within its timeout) and be recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Claims what the free slots allow and starts sending; answers true when slots and work remain. */
  private async round(): Promise<boolean> {
    const free = this.config.concurrency - this.inFlight.size;
    if (free <= 0) return false;
    const now = this.clock.now();
    const claimToken = randomUUID();
    const leaseUntil = new Date(now.getTime() + this.config.httpTimeoutMs + LEASE_MARGIN_MS);
    const claimed = await this.deliveries.claimDue(
      now,
      leaseUntil,
      free,
      this.config.perShopConcurrency,
      claimToken,
      this.instanceId,
    );
    for (const d of claimed) {
      const run = this.deliver(d, claimToken).finally(() => this.inFlight.delete(d.id));
      this.inFlight.set(d.id, run);
    }
    return claimed.length === free && this.inFlight.size < this.config.concurrency;
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
          'x-signature': sign(shop.callbackSecret!, d.body, timestamp),
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

  /** Until the next delivery falls due, or the poll interval, whichever is sooner (and not busier than every 100 ms: rows held back by a busy shop count as due). */
  private async untilNextDue(): Promise<number> {
    const poll = this.config.pollIntervalMs;
    if (this.inFlight.size >= this.config.concurrency) return poll;
    const next = await this.deliveries.nextDueAt();
    if (!next) return poll;
    return Math.max(Math.min(poll, 100), Math.min(poll, next.getTime() - this.clock.now().getTime()));
  }
}
