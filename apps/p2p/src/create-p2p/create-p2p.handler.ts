import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  createP2pCommand,
  Envelope,
  errorReply,
  okReply,
  parsePayload,
  P2pCommandTypes,
  P2pView,
  Reply,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import { DispatchQueue, ProviderClient } from '@payments/provider-dispatch';
import { TRANSFER_CODES } from '@payments/transfers-domain';
import { enqueueP2p, P2P_DISPATCH_QUEUE, P2P_PROVIDER } from '../dispatch-p2p/p2p-dispatcher.service';
import { P2pEntity } from '../p2p.entity';
import { P2pRepository } from '../p2p.repository';
import { toP2pView } from '../p2p-view';
import { publishStatusChange } from '../p2p-outbox';
import { CLOCK, Clock, P2P_OUTBOX } from '../tokens';

function merchantP2pIdTaken(merchantP2pId: string, p2pId: string): Reply<never> {
  return errorReply({
    code: 'conflict',
    detail: `p2p.merchantP2pId "${merchantP2pId}" is already used by p2p ${p2pId} of this shop`,
    errors: [{ path: 'p2p.merchantP2pId', message: 'is already used by another p2p of this shop' }],
    extensions: { p2pId },
  });
}

@Controller()
export class CreateP2pHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly p2p: P2pRepository,
    @Inject(P2P_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(P2P_DISPATCH_QUEUE) private readonly queue: DispatchQueue,
    @Inject(P2P_PROVIDER) private readonly provider: ProviderClient,
  ) {}

  /**
   * Creates the P2P transaction in `registered` with its event and its dispatch row, in one transaction.
   * Idempotent by p2p id: a resent command gets the existing transaction back, nothing is sent twice.
   */
  @MessagePattern(P2pCommandTypes.create)
  async create(@Payload() message: Envelope): Promise<Reply<P2pView>> {
    const cmd = parsePayload(createP2pCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const existing = await this.p2p.findOfShop(cmd.p2pId, cmd.shopId, m);
      if (existing) return okReply(toP2pView(existing));
      const taken = await this.p2p.findByMerchantP2pId(m, cmd.shopId, cmd.merchantP2pId);
      if (taken) return merchantP2pIdTaken(cmd.merchantP2pId, taken.id);
      const p2p = m.getRepository(P2pEntity).create({
        id: cmd.p2pId,
        shopId: cmd.shopId,
        merchantP2pId: cmd.merchantP2pId,
        provider: this.provider.code,
        status: 'registered',
        statusCode: TRANSFER_CODES.p2p.registered,
        amount: formatAmount(cmd.cost.amount),
        currency: cmd.cost.currency,
        tokenStandard: cmd.cost.tokenStandard ?? null,
        description: cmd.description ?? null,
        sender: cmd.sender ?? null,
        recipient: cmd.recipient ?? null,
        callbackUrl: cmd.callbackUrl ?? null,
        needActionReason: null,
        reportedAmount: null,
        reportedCurrency: null,
        sequence: 1,
        createdAt: now,
        updatedAt: now,
      });
      if (await this.p2p.insertIfAbsent(m, p2p)) {
        await publishStatusChange(this.outbox, m, p2p, null, now, message);
        await enqueueP2p(this.queue, m, p2p, now); // sent to the provider after commit, off the merchant's request
        return okReply(toP2pView(p2p));
      }
      const same = await this.p2p.findOfShop(cmd.p2pId, cmd.shopId, m);
      if (same) return okReply(toP2pView(same));
      const racing = await this.p2p.findByMerchantP2pId(m, cmd.shopId, cmd.merchantP2pId);
      if (racing) return merchantP2pIdTaken(cmd.merchantP2pId, racing.id);
      // The id belongs to another shop's transaction: ids are random UUIDs, so this is a bug upstream.
      throw new Error(`p2p id ${cmd.p2pId} collides with a P2P transaction of another shop`);
    });
  }
}
