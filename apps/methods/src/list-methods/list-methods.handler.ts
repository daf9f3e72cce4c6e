import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  listMethodsQuery,
  MethodDirection,
  MethodListView,
  MethodQueryTypes,
  okReply,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { MethodRepository } from '../method.repository';
import { toMethodView } from '../method-view';

/** A shop's methods: merchants get the enabled ones, operators (includeDisabled) all of them. */
@Controller()
export class ListMethodsHandler {
  constructor(private readonly methods: MethodRepository) {}

  @MessagePattern(MethodQueryTypes.paymentList)
  payment(@Payload() message: Envelope): Promise<Reply<MethodListView>> {
    return this.list('payment', message);
  }

  @MessagePattern(MethodQueryTypes.payoutList)
  payout(@Payload() message: Envelope): Promise<Reply<MethodListView>> {
    return this.list('payout', message);
  }

  private async list(direction: MethodDirection, message: Envelope): Promise<Reply<MethodListView>> {
    const q = parsePayload(listMethodsQuery, message.payload, message.type);
    const rows = await this.methods.list(direction, q.shopId, q.includeDisabled ?? false);
    return okReply({ shopId: q.shopId, methods: rows.map(toMethodView) });
  }
}
