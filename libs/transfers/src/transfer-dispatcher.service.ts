import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CardVault, CardVaultError, EnvelopeError } from '@payments/card-vault';
import type { TransferStatus } from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { CLOCK, Clock } from '@payments/platform';
import {
  ClaimedDispatch,
  DispatchDecision,
  DispatchHandler,
  DispatcherOptions,
  DispatchQueue,
  MeasuredAnswer,
  ProviderAnswer,
  ProviderClient,
  ProviderDispatcher,
} from '@payments/provider-dispatch';
import { assertNever } from '@payments/exhaustive';
import { decideSendOutcome, shouldSendTransfer } from '@payments/transfers-domain';
import type { TransferServiceConfig } from './transfer-config';
import type { TransferKindSpec } from './transfer-kind';
import { TransferRepository } from './transfer.repository';
import { TransferWrites } from './transfer-writes';
import {
  TRANSFER_CARD_VAULT,
  TRANSFER_CONFIG,
  TRANSFER_DISPATCH_QUEUE,
  TRANSFER_DISPATCHER_OPTIONS,
  TRANSFER_KIND,
  TRANSFER_PROVIDER,
} from './tokens';

export interface TransferDispatcherOptions extends DispatcherOptions {
  /** Replaces the provider adapter (the sandbox's, at `SANDBOX_PROVIDER_URL`). */
  provider?: ProviderClient;
}

/**
 * Sends new transfers to the provider, off the merchant's request: the shared dispatcher of
 * libs/provider-dispatch with the rules of transfers-domain `decideSendOutcome`.
 */
@Injectable()
export class TransferDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown, DispatchHandler {
  private readonly logger = new Logger(TransferDispatcher.name);
  private readonly dispatcher: ProviderDispatcher;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(TRANSFER_DISPATCH_QUEUE) queue: DispatchQueue,
    private readonly transfers: TransferRepository,
    private readonly writes: TransferWrites,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
    @Inject(CLOCK) clock: Clock,
    @Inject(TRANSFER_CONFIG) config: TransferServiceConfig,
    @Inject(TRANSFER_PROVIDER) private readonly provider: ProviderClient,
    @Inject(TRANSFER_DISPATCHER_OPTIONS) private readonly options: TransferDispatcherOptions,
    @Inject(TRANSFER_CARD_VAULT) private readonly vault: CardVault,
  ) {
    this.dispatcher = new ProviderDispatcher({
      name: `${kind.kind} dispatching`,
      kind: kind.kind,
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

  async send(row: ClaimedDispatch, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
    if (row.provider !== this.provider.code) {
      return Promise.resolve({
        kind: 'unavailable',
        reason: `no adapter for provider "${row.provider}" in this instance`,
      });
    }
    const cards = await this.cardsFor(row);
    if (cards.kind === 'refused') return cards;
    return this.provider.start(
      {
        kind: this.kind.kind,
        dispatchId: row.dispatchId,
        reference: row.referenceId,
        amount: formatInCurrency(row.amount, row.currency),
        currency: row.currency,
        ...(row.tokenStandard ? { tokenStandard: row.tokenStandard } : {}),
        ...(Object.keys(cards.numbers).length > 0 ? { cards: cards.numbers } : {}),
      },
      opts,
    );
  }

  /**
   * The transfer's card numbers, from the vault, just before the send. An erased card or a
   * ciphertext that fails authentication is a refusal: nothing is sent with a wrong number.
   */
  private async cardsFor(
    row: ClaimedDispatch,
  ): Promise<{ kind: 'cards'; numbers: Record<string, string> } | { kind: 'refused'; reason: string }> {
    const transfer = await this.transfers.getById(row.referenceId);
    const tokens = transfer ? this.kind.cardsOf(transfer) : {};
    const numbers: Record<string, string> = {};
    for (const [role, token] of Object.entries(tokens)) {
      try {
        numbers[role] = await this.vault.detokenize(token);
      } catch (err) {
        if (!(err instanceof CardVaultError) && !(err instanceof EnvelopeError)) throw err;
        this.logger.error(`${this.kind.noun} ${row.referenceId}: card ${role} (${token}) not sent: ${err.message}`);
        return { kind: 'refused', reason: `the card vault refused ${role}: ${err.message}` };
      }
    }
    return { kind: 'cards', numbers };
  }

  async record(
    m: EntityManager,
    row: ClaimedDispatch,
    answer: MeasuredAnswer,
    ctx: { lastSend: boolean; now: Date },
  ): Promise<DispatchDecision> {
    const transfer = await this.transfers.findForUpdate(m, row.referenceId);
    if (!transfer) throw new Error(`${this.kind.kind} ${row.referenceId} of dispatch ${row.dispatchId} does not exist`);
    const outcome = decideSendOutcome(this.kind.kind, transfer, answer.kind, ctx.lastSend);
    switch (outcome.kind) {
      case 'retry':
        return { kind: 'retry' };
      case 'drop':
        return { kind: 'drop', reason: outcome.reason };
      case 'record': {
        if (outcome.move) await this.writes.transition(m, transfer, outcome.move, ctx.now);
        const error = answer.kind === 'accepted' ? '' : ` (${answer.reason})`;
        const moved = outcome.move ? `→ ${outcome.move.status} ${outcome.move.statusCode}` : `stays ${transfer.status}`;
        return {
          kind: 'finish',
          status: outcome.dispatch,
          summary: `${outcome.dispatch}${error}; ${this.kind.kind} ${moved}`,
        };
      }
      default:
        return assertNever(outcome);
    }
  }
}
