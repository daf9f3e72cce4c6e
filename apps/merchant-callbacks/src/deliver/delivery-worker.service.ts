import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { signWithEach } from '@payments/callback-signature';
import { type ClaimRequest, QueueWorker, workerInstanceId } from '@payments/messaging';
import { PaymentsMetrics } from '@payments/platform';
import { isDelivered, nextRetry } from '@payments/merchant-callbacks-domain';
import { signingSecrets } from '../shop-settings/signing-secrets';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';
import { CallbackSender } from './callback-sender';
import { ClaimedDelivery, DeliveryOutcome, DeliveryRepository } from './delivery.repository';
import { OutcomeRecorder } from './outcome-recorder';

/** How long a delivery waits for its shop's settings to arrive on `shops.settings`. */
const UNKNOWN_SHOP_PAUSE_MS = 1000;

/** Deliveries whose call has ended that may wait for their record, per slot of `concurrency`. */
const UNRECORDED_PER_SLOT = 4;

/** The most outcomes recorded in one statement. */
const RECORD_BATCH = 128;

/** Statements recording outcomes at once (of the 10 connections of the pool). */
const RECORD_WRITERS = 3;

/**
 * How long a batch of outcomes is tried again while PostgreSQL is away: well inside the lease's
 * 30 s margin past the HTTP timeout, so a claim does not run out while its outcome waits.
 */
const RECORD_RETRY_MS = 20_000;

/**
 * The delivery worker pool, on the shared QueueWorker of libs/messaging. It claims due
 * deliveries up to the free slots in one statement (bounded overall and per shop, their shops'
 * settings with them), starts their HTTP calls on kept-alive connections without waiting for
 * them, and goes back to claiming: a merchant that hangs holds its own slots until the timeout,
 * never the loop or other shops'. A slot, and a shop's, is held for the HTTP call only: when it
 * ends the loop runs again while the outcome is recorded (decisions 236, 242; at most four times
 * `concurrency` deliveries wait for their record). Outcomes are recorded in batches
 * (group commit: attempt log, delivery state, the object's next head); the freed slots run the
 * loop again, so the next callback of the same object goes out at once.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly worker: QueueWorker<ClaimedDelivery>;
  private readonly removeMetrics: (() => void)[] = [];
  private readonly sender: CallbackSender;
  private readonly recorder: OutcomeRecorder<DeliveryOutcome>;
  /** Deliveries whose call has ended and whose outcome is being recorded, with their claim: they no longer hold their shop's slot. */
  private readonly settling = new Map<string, string>();

  constructor(
    private readonly deliveries: DeliveryRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {
    this.sender = new CallbackSender({ timeoutMs: config.httpTimeoutMs, allowInsecure: config.allowInsecureTargets });
    this.recorder = new OutcomeRecorder<DeliveryOutcome>({
      write: (batch) => deliveries.recordOutcomes(batch, clock.now()),
      idOf: (o) => o.id,
      maxBatch: RECORD_BATCH,
      writers: RECORD_WRITERS,
      tries: 3,
      retryForMs: RECORD_RETRY_MS,
      logger: this.logger,
    });
    this.worker = new QueueWorker<ClaimedDelivery>({
      name: 'delivering callbacks',
      databaseUrl: config.databaseUrl,
      queue: deliveries.work,
      concurrency: config.concurrency,
      workTimeoutMs: config.httpTimeoutMs,
      instanceId: workerInstanceId(),
      clock,
      claim: (r) => this.claim(r),
      idOf: (d) => d.id,
      work: (d, claimToken, release) => this.deliver(d, claimToken, release),
      // A delivery's slot is the HTTP call; what waits for its record is bounded apart (decision 242).
      maxUnrecorded: config.concurrency * UNRECORDED_PER_SLOT,
      pollIntervalMs: config.pollIntervalMs,
      // Rows held back by a busy shop count as due: look again no more often than every 100 ms.
      minIdleMs: 100,
      logger: this.logger,
    });
  }

  /** One statement claims up to the free slots; heads found stale are set again from their deliveries. */
  private async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    const { claimed, stale } = await this.deliveries.claimDue(
      r.now,
      r.leaseUntil,
      r.limit,
      this.config.perShopConcurrency,
      r.claimToken,
      r.claimedBy,
      [...this.settling].map(([id, claimToken]) => ({ id, claimToken })),
    );
    if (stale.length > 0) {
      this.logger.warn(`${stale.length} queue heads did not match their deliveries; setting them again`);
      try {
        await this.deliveries.repairHeads(stale);
      } catch (err) {
        // The claimed deliveries are leased already: start them. The stale heads come back when their lease runs out.
        this.logger.error(`setting ${stale.length} queue heads again failed: ${(err as Error).message}`);
      }
    }
    return claimed;
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
    await this.sender.close();
  }

  /** Sends one claimed delivery (or finds it has nowhere to go) and records what came of it. */
  private async deliver(d: ClaimedDelivery, claimToken: string, release: () => void): Promise<void> {
    try {
      const { outcome, summary } = await this.attempt(d, claimToken);
      // The merchant is done with this call: its slot, and its shop's, are free for the next one
      // while the outcome is recorded (decisions 236, 242). The object's next callback still waits
      // for the record.
      this.settling.set(d.id, claimToken);
      release();
      const recorded = await this.recorder.record(outcome).finally(() => this.settling.delete(d.id));
      if (outcome.attempt) {
        const r = outcome.attempt;
        PaymentsMetrics.merchantCallbackAttempts.inc({
          result:
            r.responseStatus === null ? 'network_error' : outcome.status === 'delivered' ? 'delivered' : 'http_error',
        });
      }
      // The URL's path and query may hold a merchant's token: log the origin only. Never the body or secret.
      // A delivered callback is routine (its attempt is in the delivery log): debug. What did not
      // go through is what an operator may act on.
      const to = outcome.attempt ? ` to ${new URL(outcome.attempt.url).origin}` : '';
      const line = `delivery ${d.id} (${d.objectId} #${d.sequence})${to}: ${recorded ? summary : 'claim lost (lease ran out); not recorded'}`;
      if (recorded && outcome.status === 'delivered') this.logger.debug(line);
      else this.logger.log(line);
    } catch (err) {
      // The row stays claimed; it comes back when its lease runs out.
      this.logger.error(`delivery ${d.id}: ${(err as Error).message}`);
    }
  }

  /** What becomes of a claimed delivery: the HTTP attempt, if it has a URL and its shop is known. */
  private async attempt(
    d: ClaimedDelivery,
    claimToken: string,
  ): Promise<{ outcome: DeliveryOutcome; summary: string }> {
    const base = { id: d.id, claimToken, objectType: d.objectType, objectId: d.objectId };
    const shop = d.shop;
    if (shop.kind === 'unknown' || !shop.callbackSecret) {
      // The shop's settings (or its secret) have not arrived on shops.settings yet: wait for them, not an attempt.
      const now = this.clock.now();
      if (now.getTime() - d.windowStartedAt.getTime() > this.config.retry.windowMs) {
        const error = `no settings of shop ${d.shopId} arrived within the retry window`;
        return {
          outcome: { ...base, status: 'failed', nextAttemptAt: null, error, attempt: null },
          summary: `failed: ${error}`,
        };
      }
      return {
        outcome: {
          ...base,
          status: 'pending',
          nextAttemptAt: new Date(now.getTime() + UNKNOWN_SHOP_PAUSE_MS),
          error: 'waiting for the shop settings',
          attempt: null,
        },
        summary: `waiting for the settings of shop ${d.shopId}`,
      };
    }
    const url = d.urlOverride ?? shop.callbackUrl;
    if (!url) {
      return {
        outcome: {
          ...base,
          status: 'skipped',
          nextAttemptAt: null,
          error: 'the shop has no callback URL',
          attempt: null,
        },
        summary: `skipped: shop ${d.shopId} has no callback URL`,
      };
    }
    const startedAt = this.clock.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const result = await this.sender.post(url, d.body, {
      'content-type': 'application/json',
      'user-agent': 'payments-merchant-callbacks/1',
      'x-event-id': d.eventId,
      'x-signature': signWithEach(signingSecrets(this.config.secretKeys, d.shopId, shop, startedAt), d.body, timestamp),
    });
    const now = this.clock.now();
    const latencyMs = Math.max(0, now.getTime() - startedAt.getTime());
    const number = d.attempts + 1;
    const responseStatus = result.kind === 'response' ? result.status : null;
    const attempt = { number, at: startedAt, url, responseStatus, latencyMs };
    if (isDelivered(result)) {
      return {
        outcome: { ...base, status: 'delivered', nextAttemptAt: null, error: null, attempt },
        summary: `delivered (HTTP ${responseStatus}, ${latencyMs} ms, attempt ${number})`,
      };
    }
    const error = result.kind === 'error' ? result.reason.slice(0, 500) : `HTTP ${result.status}`;
    const next = nextRetry(this.config.retry, number, d.windowStartedAt, now, Math.random());
    if (next.kind === 'give_up') {
      return {
        outcome: { ...base, status: 'failed', nextAttemptAt: null, error, attempt },
        summary: `failed for good after ${number} attempts (${error}); an operator can replay it`,
      };
    }
    return {
      outcome: { ...base, status: 'pending', nextAttemptAt: next.at, error, attempt },
      summary: `attempt ${number} failed (${error}); next in ${next.delayMs} ms`,
    };
  }
}
