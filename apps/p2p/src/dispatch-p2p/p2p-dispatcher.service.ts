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
import { P2P_CONFIG, P2pConfig } from '../config';
import { P2pEntity } from '../p2p.entity';
import { P2pRepository } from '../p2p.repository';
import { applyTransition } from '../p2p-outbox';
import { CLOCK, Clock, P2P_OUTBOX } from '../tokens';

export const P2P_DISPATCHER_OPTIONS = Symbol('P2P_DISPATCHER_OPTIONS');
export const P2P_PROVIDER = Symbol('P2P_PROVIDER');
export const P2P_DISPATCH_QUEUE = Symbol('P2P_DISPATCH_QUEUE');

export interface P2pDispatcherOptions extends DispatcherOptions {
  /** Replaces the provider adapter (the sandbox's, at `SANDBOX_PROVIDER_URL`). */
  provider?: ProviderClient;
}

/** Queues a new P2P transaction for the provider, in the transaction that creates it. */
export async function enqueueP2p(queue: DispatchQueue, m: EntityManager, p2p: P2pEntity, now: Date): Promise<string> {
  const dispatchId = `p2p_${randomUUID()}`;
  await queue.enqueue(
    m,
    {
      dispatchId,
      referenceId: p2p.id,
      provider: p2p.provider,
      amount: p2p.amount,
      currency: p2p.currency,
      tokenStandard: p2p.tokenStandard,
    },
    now,
  );
  return dispatchId;
}

/**
 * Sends new P2P transactions to the provider, off the merchant's request: the shared dispatcher of
 * libs/provider-dispatch with the rules of transfers-domain `decideSendOutcome`.
 */
@Injectable()
export class P2pDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown, DispatchHandler {
  private readonly logger = new Logger(P2pDispatcher.name);
  private readonly dispatcher: ProviderDispatcher;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(P2P_DISPATCH_QUEUE) queue: DispatchQueue,
    private readonly p2p: P2pRepository,
    @Inject(P2P_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) clock: Clock,
    @Inject(P2P_CONFIG) config: P2pConfig,
    @Inject(P2P_PROVIDER) private readonly provider: ProviderClient,
    @Inject(P2P_DISPATCHER_OPTIONS) private readonly options: P2pDispatcherOptions,
  ) {
    this.dispatcher = new ProviderDispatcher({
      name: 'p2p dispatching',
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
        kind: 'p2p',
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
    const p2p = await this.p2p.findForUpdate(m, row.referenceId);
    if (!p2p) throw new Error(`p2p ${row.referenceId} of dispatch ${row.dispatchId} does not exist`);
    const outcome = decideSendOutcome('p2p', p2p, answer.kind, ctx.lastSend);
    switch (outcome.kind) {
      case 'retry':
        return { kind: 'retry' };
      case 'drop':
        return { kind: 'drop', reason: outcome.reason };
      case 'record': {
        if (outcome.move) await applyTransition(this.outbox, m, p2p, outcome.move, ctx.now);
        const error = answer.kind === 'accepted' ? '' : ` (${answer.reason})`;
        return {
          kind: 'finish',
          status: outcome.dispatch,
          summary: `${outcome.dispatch}${error}; p2p ${outcome.move ? `→ ${outcome.move.status} ${outcome.move.statusCode}` : `stays ${p2p.status}`}`,
        };
      }
      default:
        return assertNever(outcome);
    }
  }
}
