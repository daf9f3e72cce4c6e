import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { TransferStatus } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { formatInCurrency } from '@payments/money';
import {
  ClaimedDispatch,
  DispatchDecision,
  DispatchHandler,
  DispatcherOptions,
  DispatchQueue,
  ProviderAnswer,
  ProviderClient,
  ProviderDispatcher,
} from '@payments/provider-dispatch';
import { assertNever, decideSendOutcome, shouldSendTransfer } from '@payments/transfers-domain';
import { PAYOUTS_CONFIG, PayoutsConfig } from '../config';
import { PayoutEntity } from '../payout.entity';
import { PayoutRepository } from '../payout.repository';
import { applyTransition } from '../payouts-outbox';
import { CLOCK, Clock, PAYOUTS_OUTBOX } from '../tokens';

export const PAYOUT_DISPATCHER_OPTIONS = Symbol('PAYOUT_DISPATCHER_OPTIONS');
export const PAYOUT_PROVIDER = Symbol('PAYOUT_PROVIDER');
export const PAYOUT_DISPATCH_QUEUE = Symbol('PAYOUT_DISPATCH_QUEUE');

export interface PayoutDispatcherOptions extends DispatcherOptions {
  /** Replaces the provider adapter (the sandbox's, at `SANDBOX_PROVIDER_URL`). */
  provider?: ProviderClient;
}

/** Queues a new payout for the provider, in the transaction that creates it. */
export async function enqueuePayout(
  queue: DispatchQueue,
  m: EntityManager,
  payout: PayoutEntity,
  now: Date,
): Promise<string> {
  const dispatchId = `pout_${randomUUID()}`;
  await queue.enqueue(
    m,
    {
      dispatchId,
      referenceId: payout.id,
      provider: payout.provider,
      amount: payout.amount,
      currency: payout.currency,
      tokenStandard: payout.tokenStandard,
    },
    now,
  );
  return dispatchId;
}

/**
 * Sends new payouts to the provider, off the merchant's request: the shared dispatcher of
 * libs/provider-dispatch with the rules of transfers-domain `decideSendOutcome`.
 */
@Injectable()
export class PayoutDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown, DispatchHandler {
  private readonly logger = new Logger(PayoutDispatcher.name);
  private readonly dispatcher: ProviderDispatcher;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(PAYOUT_DISPATCH_QUEUE) queue: DispatchQueue,
    private readonly payouts: PayoutRepository,
    @Inject(PAYOUTS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) clock: Clock,
    @Inject(PAYOUTS_CONFIG) config: PayoutsConfig,
    @Inject(PAYOUT_PROVIDER) private readonly provider: ProviderClient,
    @Inject(PAYOUT_DISPATCHER_OPTIONS) private readonly options: PayoutDispatcherOptions,
  ) {
    this.dispatcher = new ProviderDispatcher({
      name: 'payout dispatching',
      dataSource,
      databaseUrl: config.databaseUrl,
      schema: config.schema,
      queue,
      handler: this,
      clock,
      policy: { maxSends: config.providerMaxAttempts, backoffMs: config.providerRetryBackoffMs, maxBackoffMs: 300_000 },
      providerTimeoutMs: config.providerTimeoutMs,
      options,
      logger: this.logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart) await this.dispatcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }

  dispatchDue(): Promise<number> {
    return this.dispatcher.dispatchDue();
  }

  shouldSend(row: ClaimedDispatch): boolean {
    return shouldSendTransfer(row.aggregateStatus as TransferStatus);
  }

  send(row: ClaimedDispatch, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
    if (row.provider !== this.provider.code) {
      return Promise.resolve({
        kind: 'unavailable',
        reason: `no adapter for provider "${row.provider}" in this instance`,
      });
    }
    return this.provider.start(
      {
        kind: 'payout',
        dispatchId: row.dispatchId,
        reference: row.referenceId,
        amount: formatInCurrency(row.amount, row.currency),
        currency: row.currency,
        ...(row.tokenStandard ? { tokenStandard: row.tokenStandard } : {}),
      },
      opts,
    );
  }

  async record(
    m: EntityManager,
    row: ClaimedDispatch,
    answer: ProviderAnswer,
    ctx: { lastSend: boolean; now: Date },
  ): Promise<DispatchDecision> {
    const payout = await this.payouts.findForUpdate(m, row.referenceId);
    if (!payout) throw new Error(`payout ${row.referenceId} of dispatch ${row.dispatchId} does not exist`);
    const outcome = decideSendOutcome('payout', payout, answer.kind, ctx.lastSend);
    switch (outcome.kind) {
      case 'retry':
        return { kind: 'retry' };
      case 'drop':
        return { kind: 'drop', reason: outcome.reason };
      case 'record': {
        if (outcome.move) await applyTransition(this.outbox, m, payout, outcome.move, ctx.now);
        const error = answer.kind === 'accepted' ? '' : ` (${answer.reason})`;
        return {
          kind: 'finish',
          status: outcome.dispatch,
          summary: `${outcome.dispatch}${error}; payout ${outcome.move ? `→ ${outcome.move.status} ${outcome.move.statusCode}` : `stays ${payout.status}`}`,
        };
      }
      default:
        return assertNever(outcome);
    }
  }
}
