import { Injectable, Logger } from '@nestjs/common';
import {
  errorReply,
  LedgerCommandTypes,
  PayoutReservation,
  ReleasePayoutCommand,
  Reply,
  ReservePayoutCommand,
  Requester,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import type { NewTransfer } from './transfer-kind';
import type { TransferEntity } from './transfer.entity';

/** A kind whose transfers take money from the shop's balance: who asks the ledger, and for what. */
export interface FundsSpec<T extends TransferEntity> {
  requester: Requester;
  request(t: NewTransfer<T>): ReservePayoutCommand;
}

/** Reserves a transfer's money before it is accepted; null means go ahead, a reply is the refusal. */
export interface TransferFunds {
  /**
   * `attemptId` is the id of the command being handled: handled again after a crash, it gets the
   * answer it had; the merchant's retry is a new command, decided anew (decision 354).
   */
  reserve(t: NewTransfer<TransferEntity>, attemptId: string): Promise<Reply<never> | null>;
  /** The transfer was never created after all: its hold is given back. */
  release(t: NewTransfer<TransferEntity>): Promise<void>;
}

/** A kind that keeps no balance (P2P): nothing to reserve. */
export const NO_FUNDS: TransferFunds = { reserve: async () => null, release: async () => undefined };

/**
 * Asks the ledger for the hold by request-reply on `ledger.commands` (decision 273), keyed by the
 * shop so a shop's holds are decided in order. No answer in time is an infrastructure fault: the
 * create fails, the gateway answers a retryable error and nothing is created.
 */
@Injectable()
export class LedgerFunds implements TransferFunds {
  private readonly logger = new Logger(LedgerFunds.name);

  constructor(
    private readonly client: KafkaRequestClient,
    private readonly spec: FundsSpec<TransferEntity>,
  ) {}

  async reserve(t: NewTransfer<TransferEntity>, attemptId: string): Promise<Reply<never> | null> {
    const reply = await this.client.request<PayoutReservation>(
      Topics.ledgerCommands,
      t.shopId,
      LedgerCommandTypes.reservePayout,
      { ...this.spec.request(t), attemptId },
    );
    return reply.ok ? null : errorReply(reply.error);
  }

  async release(t: NewTransfer<TransferEntity>): Promise<void> {
    const cmd: ReleasePayoutCommand = { payoutId: t.id, shopId: t.shopId };
    try {
      await this.client.request(Topics.ledgerCommands, t.shopId, LedgerCommandTypes.releasePayout, cmd);
    } catch (err) {
      this.logger.warn(`${t.id}: its hold was not released (${String(err)}); it stays held until an operator voids it`);
    }
  }
}
