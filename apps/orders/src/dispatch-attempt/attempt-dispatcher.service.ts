import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { NotifiedWorker, Outbox } from '@payments/messaging';
import { formatInCurrency } from '@payments/money';
import { assertNever } from '@payments/orders-domain';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { PaymentAttemptEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';
import { decideAttemptOutcome, RetryPolicy, shouldSend } from './attempt-outcome';
import { PAYMENT_PROVIDER, PaymentProvider, ProviderAnswer } from './payment-provider';
import { ClaimedDispatch, dispatchChannel, ProviderDispatchRepository } from './provider-dispatch.repository';

export interface AttemptDispatcherOptions {
  /** Start the loop with the app; tests turn it off and call `dispatchDue()` themselves. */
  autoStart: boolean;
  /** Look for due rows at least this often, in case a NOTIFY was missed. */
  pollIntervalMs: number;
  /** Rows claimed (and sent concurrently) per round. */
  batchSize: number;
  /** Names this instance in `claimed_by`, for operators. */
  instanceId: string;
  /** Replaces the provider adapter (the sandbox's, at `SANDBOX_PROVIDER_URL`). */
  provider?: PaymentProvider;
}

export const ATTEMPT_DISPATCHER_OPTIONS = Symbol('ATTEMPT_DISPATCHER_OPTIONS');

export const DEFAULT_DISPATCHER_OPTIONS: Omit<AttemptDispatcherOptions, 'instanceId'> = { autoStart: true, pollIntervalMs: 500, batchSize: 20 };

/** A claimed row comes back to the queue this long after its provider call should have ended. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Sends queued payment attempts to the provider, asynchronously from the merchant's request.
 * Several orders instances may run it at once: rows are claimed with FOR UPDATE SKIP LOCKED, the
 * provider is called outside any transaction with a per-call timeout, and the outcome is recorded
 * in one transaction under the order's lock (attempt row, order transition, outbox event).
 * Woken by NOTIFY when a row is committed; polls as a fallback and for retries that fall due.
 */
@Injectable()
export class AttemptDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AttemptDispatcher.name);
  private readonly policy: RetryPolicy;
  private readonly worker: NotifiedWorker;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatches: ProviderDispatchRepository,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @Inject(ATTEMPT_DISPATCHER_OPTIONS) private readonly options: AttemptDispatcherOptions,
  ) {
    this.policy = { maxSends: config.providerMaxAttempts, backoffMs: config.providerRetryBackoffMs, maxBackoffMs: 300_000 };
    this.worker = new NotifiedWorker({
      name: 'dispatching',
      databaseUrl: config.databaseUrl,
      channel: dispatchChannel(config.schema),
      round: async () => (await this.dispatchDue()) >= options.batchSize,
      idleDelayMs: () => this.untilNextDue(),
      logger: this.logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart) await this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /** Stops after the round in flight: its provider calls end within their timeout and are recorded. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Claims the rows due now, sends them and records the outcomes; returns how many it claimed. */
  async dispatchDue(): Promise<number> {
    const now = this.clock.now();
    const claimToken = randomUUID();
    const leaseUntil = new Date(now.getTime() + this.config.providerTimeoutMs + LEASE_MARGIN_MS);
    const claimed = await this.dispatches.claimDue(now, leaseUntil, this.options.batchSize, claimToken, this.options.instanceId);
    await Promise.all(claimed.map((row) => this.dispatchOne(row, claimToken)));
    return claimed.length;
  }

  private async dispatchOne(row: ClaimedDispatch, claimToken: string): Promise<void> {
    try {
      if (!shouldSend(row.orderStatus)) {
        await this.dataSource.transaction(async (m) => {
          if (await this.dispatches.lockClaimed(m, row.paymentId, claimToken)) {
            await this.dispatches.finish(m, row.paymentId, 'skipped', this.clock.now(), { error: `order was ${row.orderStatus} before the attempt was sent` });
          }
        });
        this.logger.log(`attempt ${row.paymentId} of order ${row.orderId} not sent: the order is ${row.orderStatus}`);
        return;
      }
      const answer = await this.send(row);
      await this.record(row, claimToken, answer);
    } catch (err) {
      // The row stays claimed; it comes back when its lease runs out.
      this.logger.error(`attempt ${row.paymentId} of order ${row.orderId}: ${(err as Error).message}`);
    }
  }

  private async send(row: ClaimedDispatch): Promise<ProviderAnswer> {
    if (row.provider !== this.provider.code) {
      return { kind: 'unavailable', reason: `no adapter for provider "${row.provider}" in this instance` };
    }
    return this.provider.startPayment(
      {
        paymentId: row.paymentId,
        orderId: row.orderId,
        amount: formatInCurrency(row.amount, row.currency),
        currency: row.currency,
        ...(row.tokenStandard ? { tokenStandard: row.tokenStandard } : {}),
      },
      { timeoutMs: this.config.providerTimeoutMs },
    );
  }

  /** One transaction: the dispatch row, then the order (locked, re-read), the attempt and the event. */
  private async record(row: ClaimedDispatch, claimToken: string, answer: ProviderAnswer): Promise<void> {
    const now = this.clock.now();
    const summary = await this.dataSource.transaction(async (m) => {
      const claim = await this.dispatches.lockClaimed(m, row.paymentId, claimToken);
      if (!claim) return 'claim lost (lease ran out); left to the dispatcher that holds it now';
      const order = await this.orders.findForUpdate(m, row.orderId);
      if (!order) throw new Error(`order ${row.orderId} of attempt ${row.paymentId} does not exist`);

      const outcome = decideAttemptOutcome(order, answer, claim.sends, this.policy);
      const error = answer.kind === 'accepted' ? undefined : answer.reason;
      switch (outcome.kind) {
        case 'retry':
          await this.dispatches.reschedule(m, row.paymentId, new Date(now.getTime() + outcome.delayMs), error ?? '', now);
          return `${answer.kind} (${error}); send ${claim.sends}/${this.policy.maxSends}, next in ${outcome.delayMs} ms`;
        case 'drop':
          await this.dispatches.finish(m, row.paymentId, 'skipped', now, { error: outcome.reason });
          return `dropped: ${outcome.reason}`;
        case 'record': {
          // A callback that arrived first already recorded this attempt; it knows more than we do.
          if (!(await this.orders.findAttempt(m, order.id, row.paymentId))) {
            await this.orders.saveAttempt(m, m.getRepository(PaymentAttemptEntity).create({
              orderId: order.id,
              paymentId: row.paymentId,
              provider: row.provider,
              status: outcome.attempt.status,
              amount: order.amount,
              currency: order.currency,
              statusCode: outcome.attempt.statusCode,
              createdAt: now,
              updatedAt: now,
            }));
          }
          if (outcome.order) await applyTransition(this.outbox, m, order, outcome.order, now);
          await this.dispatches.finish(m, row.paymentId, outcome.dispatch, now, {
            ...(answer.kind === 'accepted' && answer.providerPaymentId ? { providerPaymentId: answer.providerPaymentId } : {}),
            ...(error ? { error } : {}),
          });
          return `${outcome.dispatch}${error ? ` (${error})` : ''}; order ${outcome.order ? `→ ${outcome.order.status} ${outcome.order.statusCode}` : `stays ${order.status}`}`;
        }
        default:
          return assertNever(outcome);
      }
    });
    this.logger.log(`attempt ${row.paymentId} of order ${row.orderId}: ${summary}`);
  }

  /** How long to sleep: until the next retry falls due, or the poll interval, whichever is sooner. */
  private async untilNextDue(): Promise<number> {
    const poll = this.options.pollIntervalMs;
    const next = await this.dispatches.nextDueAt();
    if (!next) return poll;
    return Math.max(10, Math.min(poll, next.getTime() - this.clock.now().getTime()));
  }
}

export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}
