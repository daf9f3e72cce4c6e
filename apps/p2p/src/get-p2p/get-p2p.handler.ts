import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  errorReply,
  getP2pQuery,
  okReply,
  parsePayload,
  P2pCommandTypes,
  P2pView,
  Reply,
} from '@payments/contracts';
import { P2pRepository } from '../p2p.repository';
import { toP2pView } from '../p2p-view';

@Controller()
export class GetP2pHandler {
  constructor(private readonly p2p: P2pRepository) {}

  /** Another shop's P2P transaction is answered exactly like a missing one. */
  @MessagePattern(P2pCommandTypes.get)
  async get(@Payload() message: Envelope): Promise<Reply<P2pView>> {
    const q = parsePayload(getP2pQuery, message.payload, message.type);
    const p2p = await this.p2p.findOfShop(q.p2pId, q.shopId);
    if (!p2p) return errorReply({ code: 'not_found', detail: `P2P transaction ${q.p2pId} does not exist` });
    return okReply(toP2pView(p2p));
  }
}
