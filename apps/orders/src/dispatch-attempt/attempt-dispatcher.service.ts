import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrderStatus } from '@payments/contracts';
import { Outbox, OutboxItem } from '@payments/messaging';
import { CardVault, CardVaultError, EnvelopeError } from '@payments/card-vault';
import { formatInCurrency } from '@payments/money';
import { PaymentsMetrics } from '@payments/platform';
import { assertNever } from '@payments/exhaustive';
import {
  ClaimedDispatch,
  DEFAULT_DISPATCHER_OPTIONS as SHARED_DEFAULTS,
  DispatchDecision,
  DispatchHandler,
  DispatcherOptions,
  finishDetails,
  MeasuredAnswer,
  ProviderDispatcher,
  RetryPolicy,
} from '@payments/provider-dispatch';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { statusChangedItem, transitionInMemory } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_CARD_VAULT, ORDERS_OUTBOX } from '../tokens';
import {
  decideAttemptOutcome,
  isFailoverCandidate,
  mayFailOver,
  provablyNotTaken,
  shouldSend,
  timeForAnotherAttempt,
} from './attempt-outcome';
import { PAYMENT_PROVIDERS, PaymentProvider, PaymentProviders, ProviderAnswer } from './payment-provider';
import { nextProvider } from '../routing/route-choice';
import { otherAttempts } from '../routing/route.repository';
import { ProviderDispatchRepository } from './provider-dispatch.repository';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';

export { defaultInstanceId } from '@payments/provider-dispatch';

export interface AttemptDispatcherOptions extends DispatcherOptions {
  /** Replaces the provider adapter (the sandbox's, at `SANDBOX_PROVIDER_URL`). */
  provider?: PaymentProvider;
  /** More adapters, for the providers routes name (decision 322); `sandbox-b` is always there. */
  providers?: PaymentProvider[];
}

/** What `lockClaimed` read with the claim: the order and what the attempt's earlier sends say (decision 343). */
interface LockedAttempt {
  order: OrderEntity;
  earlierSendMayHaveReached: boolean;
}

export const ATTEMPT_DISPATCHER_OPTIONS = Symbol('ATTEMPT_DISPATCHER_OPTIONS');

export const DEFAULT_DISPATCHER_OPTIONS: Omit<AttemptDispatcherOptions, 'instanceId'> = SHARED_DEFAULTS;

/**
 * Sends queued payment attempts to the provider, asynchronously from the merchant's request: the
 * shared dispatcher of libs/provider-dispatch (claim, lease, NOTIFY wake-up, backoff) with the
 * orders' rules for what a send means for the attempt and its order (attempt-outcome.ts).
 */
@Injectable()
export class AttemptDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown, DispatchHandler {
  private readonly logger = new Logger(AttemptDispatcher.name);
  private readonly policy: RetryPolicy;
  private readonly dispatcher: ProviderDispatcher;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dispatches: ProviderDispatchRepository,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) clock: Clock,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(PAYMENT_PROVIDERS) private readonly adapters: PaymentProviders,
    @Inject(ATTEMPT_DISPATCHER_OPTIONS) private readonly options: AttemptDispatcherOptions,
    private readonly shopSettings: ShopSettingsRepository,
    @Inject(ORDERS_CARD_VAULT) private readonly vault: CardVault,
  ) {
    this.policy = {
      maxSends: config.providerMaxAttempts,
      backoffMs: config.providerRetryBackoffMs,
      maxBackoffMs: 300_000,
    };
    this.dispatcher = new ProviderDispatcher({
      name: 'dispatching',
      kind: 'payment',
      dataSource,
      databaseUrl: config.databaseUrl,
      schema: config.schema,
      queue: dispatches.queue,
      handler: this,
      clock,
      policy: this.policy,
      providerTimeoutMs: config.providerTimeoutMs,
      options,
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
    return this.dispatcher.start();
  }

  /** Stops after the round in flight: its provider calls end within their timeout and are recorded. */
  stop(): Promise<void> {
    return this.dispatcher.stop();
  }

  /** Claims the rows due now, sends them and records the outcomes; returns how many it claimed. */
  dispatchDue(): Promise<number> {
    return this.dispatcher.dispatchDue();
  }

  shouldSend(row: ClaimedDispatch): boolean {
    return shouldSend(row.aggregateStatus as OrderStatus);
  }

  async send(row: ClaimedDispatch, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
    const adapter = this.adapters.get(row.provider);
    // Nothing left this instance (decision 324): provably not taken, so a route fails over.
    if (!adapter)
      return {
        kind: 'unavailable',
        reason: `no adapter for provider "${row.provider}" in this instance`,
        notSent: true,
      };
    // A card typed on the hosted page: opened from the vault for this one request (section 10).
    // Both were read with the claim (ProviderDispatchRepository's aggregateColumns).
    const cardToken = (row.aggregate.cardToken as string | null | undefined) ?? null;
    const app = row.aggregate.app === true;
    let cardNumber: string | undefined;
    if (cardToken) {
      try {
        cardNumber = await this.vault.detokenize(cardToken);
      } catch (err) {
        if (!(err instanceof CardVaultError) && !(err instanceof EnvelopeError)) throw err;
        // Invalid payment data (2-02-01, no retry): no other provider would get a card either (decision 322).
        return {
          kind: 'refused',
          reason: `the card vault refused the payer's card: ${err.message}`,
          statusCode: '2-02-01',
        };
      }
    }
    return adapter.startPayment(
      {
        paymentId: row.dispatchId,
        orderId: row.referenceId,
        amount: formatInCurrency(row.amount, row.currency),
        currency: row.currency,
        ...(row.tokenStandard ? { tokenStandard: row.tokenStandard } : {}),
        ...(cardNumber ? { cardNumber } : {}),
        ...(app ? { app } : {}),
      },
      opts,
    );
  }

  /** The dispatch row and its order locked and read in one statement (decision 241). */
  async lockClaimed(
    m: EntityManager,
    row: ClaimedDispatch,
    claimToken: string,
  ): Promise<{ sends: number; locked: LockedAttempt } | null> {
    const claim = await this.orders.lockDispatchWithOrder(m, row.dispatchId, claimToken);
    return (
      claim && {
        sends: claim.sends,
        locked: { order: claim.order, earlierSendMayHaveReached: claim.earlierSendMayHaveReached },
      }
    );
  }

  /** The order (locked, re-read), the attempt and the event, in the dispatcher's transaction. */
  async record(
    m: EntityManager,
    row: ClaimedDispatch,
    answer: MeasuredAnswer,
    ctx: { sends: number; now: Date; locked?: unknown },
  ): Promise<DispatchDecision> {
    const locked = ctx.locked as LockedAttempt | undefined;
    const order = locked?.order ?? (await this.orders.findForUpdate(m, row.referenceId));
    if (!order) throw new Error(`order ${row.referenceId} of attempt ${row.dispatchId} does not exist`);
    const settings = await this.shopSettings.forShop(m, order.shopId);
    // Failover (decision 322): only a card attempt (no app deeplinks) refused before acceptance asks for the route's next provider.
    const card = isFailoverCandidate(order) && timeForAnotherAttempt(order, ctx.now, this.config.providerTimeoutMs);
    // Decision 343: every send of the order counts, so the other attempts are read only when this one could fail over.
    const earlierSendMayHaveReached = locked?.earlierSendMayHaveReached ?? true;
    let next: string | null = null;
    if (
      mayFailOver(order, answer, ctx.sends, this.policy, card, {
        earlierSendMayHaveReached,
        otherAttemptMayHaveTaken: false,
      })
    ) {
      const others = await otherAttempts(m, this.config.schema, order.id, row.dispatchId);
      const history = { earlierSendMayHaveReached, otherAttemptMayHaveTaken: others.mayHaveTaken };
      if (mayFailOver(order, answer, ctx.sends, this.policy, card, history))
        next = nextProvider(settings, order, others.tried.add(row.provider));
    }
    const outcome = decideAttemptOutcome(order, answer, ctx.sends, this.policy, settings.rules, next);
    const error = answer.kind === 'accepted' ? undefined : answer.reason;
    switch (outcome.kind) {
      case 'retry':
        // Sent again with the same payment id; but if this answer may have reached the provider, the attempt never fails over (decision 343).
        if (!provablyNotTaken(answer)) await this.orders.markMayHaveReached(m, row.dispatchId);
        return { kind: 'retry' };
      case 'drop':
        return { kind: 'drop', reason: outcome.reason };
      case 'record': {
        // A callback that arrived first already recorded this attempt; it knows more than we do.
        const attempt = m.getRepository(PaymentAttemptEntity).create({
          orderId: order.id,
          paymentId: row.dispatchId,
          provider: row.provider,
          status: outcome.attempt.status,
          amount: order.amount,
          currency: order.currency,
          statusCode: outcome.attempt.statusCode,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        });
        // The attempt, the order's transition and its event in one statement (decision 241).
        let transitioned: { order: OrderEntity; events: OutboxItem[] } | null = null;
        if (outcome.order) {
          const previous = transitionInMemory(order, outcome.order, ctx.now);
          transitioned = { order, events: [statusChangedItem(order, previous, ctx.now)] };
        }
        // The dispatch row ends in the same statement (decision 246): it is locked with the order.
        await this.orders.recordSendOutcome(
          m,
          attempt,
          transitioned,
          this.dispatches.queue.finishCte('f', row.dispatchId, outcome.dispatch, ctx.now, finishDetails(answer)),
        );
        if (transitioned) this.outbox.wake(m);
        // A new attempt, with a new payment id, to the next provider; the order waits for it.
        const failover = outcome.failover
          ? await this.dispatches.enqueue(m, order, ctx.now, outcome.failover.provider)
          : undefined;
        const failedOverTo = outcome.failover?.provider;
        return {
          kind: 'finish',
          finished: true,
          // Counted once the failover is committed: a rolled-back (and re-recorded) one counts once.
          ...(failedOverTo
            ? {
                afterCommit: () =>
                  PaymentsMetrics.paymentFailovers.inc({ from: row.provider, to: failedOverTo, reason: answer.kind }),
              }
            : {}),
          status: outcome.dispatch,
          summary: `${outcome.dispatch}${error ? ` (${error})` : ''}; order ${outcome.order ? `→ ${outcome.order.status} ${outcome.order.statusCode}` : `stays ${order.status}`}${failover ? `; failover to ${outcome.failover!.provider} as ${failover}` : ''}`,
        };
      }
      default:
        return assertNever(outcome);
    }
  }
}
