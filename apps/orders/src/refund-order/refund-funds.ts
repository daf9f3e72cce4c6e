import { Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  errorReply,
  LedgerCommandTypes,
  RefundReservation,
  ReleaseRefundCommand,
  Reply,
  ReserveRefundCommand,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';

/** Reserves a refund's debit before the refund is accepted; null means go ahead, a reply is the refusal. */
export interface RefundFunds {
  reserve(cmd: ReserveRefundCommand): Promise<Reply<never> | null>;
  /** The refund was never created after all: its hold is given back. */
  release(cmd: ReleaseRefundCommand): Promise<void>;
}

/** Where no ledger runs (LEDGER_HOLDS=false): refunds go ahead unheld and are booked as before. */
export const NO_REFUND_FUNDS: RefundFunds = { reserve: async () => null, release: async () => undefined };

/**
 * Asks the ledger for a refund's hold by request-reply on `ledger.commands`, keyed by the shop
 * (decision 276, the pattern of decision 273). No answer in time is an infrastructure fault: the
 * refund fails with a retryable error and nothing is created.
 */
export class LedgerRefundFunds implements RefundFunds, OnApplicationShutdown {
  private readonly logger = new Logger(LedgerRefundFunds.name);

  constructor(private readonly client: KafkaRequestClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.stop();
  }

  async reserve(cmd: ReserveRefundCommand): Promise<Reply<never> | null> {
    const reply = await this.client.request<RefundReservation>(
      Topics.ledgerCommands,
      cmd.shopId,
      LedgerCommandTypes.reserveRefund,
      cmd,
    );
    return reply.ok ? null : errorReply(reply.error);
  }

  async release(cmd: ReleaseRefundCommand): Promise<void> {
    try {
      await this.client.request(Topics.ledgerCommands, cmd.shopId, LedgerCommandTypes.releaseRefund, cmd);
    } catch (err) {
      this.logger.warn(`refund ${cmd.refundId}: its hold was not released (${String(err)}); the orphan sweep voids it`);
    }
  }
}
