import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  errorReply,
  getPayoutQuery,
  okReply,
  parsePayload,
  PayoutCommandTypes,
  PayoutView,
  Reply,
} from '@payments/contracts';
import { PayoutRepository } from '../payout.repository';
import { toPayoutView } from '../payout-view';

@Controller()
export class GetPayoutHandler {
  constructor(private readonly payouts: PayoutRepository) {}

  /** Another shop's payout is answered exactly like a missing one. */
  @MessagePattern(PayoutCommandTypes.get)
  async get(@Payload() message: Envelope): Promise<Reply<PayoutView>> {
    const q = parsePayload(getPayoutQuery, message.payload, message.type);
    const payout = await this.payouts.findOfShop(q.payoutId, q.shopId);
    if (!payout) return errorReply({ code: 'not_found', detail: `payout ${q.payoutId} does not exist` });
    return okReply(toPayoutView(payout));
  }
}
