import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  createPayoutCommand,
  Envelope,
  errorReply,
  okReply,
  parsePayload,
  PayoutCommandTypes,
  PayoutView,
  Reply,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import { DispatchQueue } from '@payments/provider-dispatch';
import { TRANSFER_CODES } from '@payments/transfers-domain';
import { enqueuePayout, PAYOUT_DISPATCH_QUEUE } from '../dispatch-payout/payout-dispatcher.service';
import { PayoutEntity } from '../payout.entity';
import { PayoutRepository } from '../payout.repository';
import { toPayoutView } from '../payout-view';
import { publishStatusChange } from '../payouts-outbox';
import { CLOCK, Clock, PAYOUTS_OUTBOX } from '../tokens';

function merchantPayoutIdTaken(merchantPayoutId: string, payoutId: string): Reply<never> {
  return errorReply({
    code: 'conflict',
    detail: `payout.merchantPayoutId "${merchantPayoutId}" is already used by payout ${payoutId} of this shop`,
    errors: [{ path: 'payout.merchantPayoutId', message: 'is already used by another payout of this shop' }],
    extensions: { payoutId },
  });
}

@Controller()
export class CreatePayoutHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    @Inject(PAYOUTS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYOUT_DISPATCH_QUEUE) private readonly queue: DispatchQueue,
  ) {}

  /**
   * Creates the payout in `registered` with its event and its dispatch row, in one transaction.
   * Idempotent by payout id: a resent command gets the existing payout back, nothing is sent twice.
   */
  @MessagePattern(PayoutCommandTypes.create)
  async create(@Payload() message: Envelope): Promise<Reply<PayoutView>> {
    const cmd = parsePayload(createPayoutCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const existing = await this.payouts.findOfShop(cmd.payoutId, cmd.shopId, m);
      if (existing) return okReply(toPayoutView(existing));
      const taken = await this.payouts.findByMerchantPayoutId(m, cmd.shopId, cmd.merchantPayoutId);
      if (taken) return merchantPayoutIdTaken(cmd.merchantPayoutId, taken.id);
      const payout = m.getRepository(PayoutEntity).create({
        id: cmd.payoutId,
        shopId: cmd.shopId,
        merchantPayoutId: cmd.merchantPayoutId,
        method: cmd.method,
        provider: cmd.provider,
        status: 'registered',
        statusCode: TRANSFER_CODES.payout.registered,
        amount: formatAmount(cmd.cost.amount),
        currency: cmd.cost.currency,
        tokenStandard: cmd.cost.tokenStandard ?? null,
        cryptoTokenStandard: cmd.cryptoTokenStandard ?? null,
        description: cmd.description ?? null,
        instrumentType: cmd.instrumentType ?? null,
        walletType: cmd.walletType ?? null,
        payee: cmd.payee,
        callbackUrl: cmd.callbackUrl ?? null,
        needActionReason: null,
        reportedAmount: null,
        reportedCurrency: null,
        sequence: 1,
        createdAt: now,
        updatedAt: now,
      });
      if (await this.payouts.insertIfAbsent(m, payout)) {
        await publishStatusChange(this.outbox, m, payout, null, now, message);
        await enqueuePayout(this.queue, m, payout, now); // sent to the provider after commit, off the merchant's request
        return okReply(toPayoutView(payout));
      }
      const same = await this.payouts.findOfShop(cmd.payoutId, cmd.shopId, m);
      if (same) return okReply(toPayoutView(same));
      const racing = await this.payouts.findByMerchantPayoutId(m, cmd.shopId, cmd.merchantPayoutId);
      if (racing) return merchantPayoutIdTaken(cmd.merchantPayoutId, racing.id);
      // The id belongs to another shop's payout: ids are random UUIDs, so this is a bug upstream.
      throw new Error(`payout id ${cmd.payoutId} collides with a payout of another shop`);
    });
  }
}
