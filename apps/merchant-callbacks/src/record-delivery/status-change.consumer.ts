import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  OrderEventTypes,
  orderStatusChanged,
  P2pEventTypes,
  p2pStatusChanged,
  parsePayload,
  PayoutEventTypes,
  payoutStatusChanged,
} from '@payments/contracts';
import { Inbox } from '@payments/messaging';
import { StatusChange, toCallbackBody } from '@payments/merchant-callbacks-domain';
import { DeliveryRepository } from '../deliver/delivery.repository';
import { CLOCK, Clock, MERCHANT_CALLBACKS_INBOX } from '../tokens';

/**
 * Consuming only records a delivery (inbox + insert, one short transaction): the HTTP call to the
 * merchant happens later in the delivery worker, so a slow or dead merchant never holds up the
 * partition, and the offset is committed only once the delivery is durable.
 */
@Controller()
export class StatusChangeConsumer {
  private readonly logger = new Logger(StatusChangeConsumer.name);

  constructor(
    @Inject(MERCHANT_CALLBACKS_INBOX) private readonly inbox: Inbox,
    private readonly deliveries: DeliveryRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @EventPattern(OrderEventTypes.statusChanged)
  order(@Payload() message: Envelope): Promise<void> {
    const p = parsePayload(orderStatusChanged, message.payload, message.type);
    return this.record(
      message,
      {
        type: 'order.status_changed',
        objectId: p.orderId,
        shopId: p.shopId,
        merchantReference: p.merchantOrderId,
        sequence: p.sequence,
        status: p.status,
        previousStatus: p.previousStatus,
        statusCode: p.statusCode,
        statusDescription: p.statusDescription,
        cost: p.cost,
        ...(p.instructions ? { instructions: p.instructions } : {}),
      },
      p.callbackUrl,
    );
  }

  @EventPattern(PayoutEventTypes.statusChanged)
  payout(@Payload() message: Envelope): Promise<void> {
    const p = parsePayload(payoutStatusChanged, message.payload, message.type);
    return this.record(
      message,
      {
        type: 'payout.status_changed',
        objectId: p.payoutId,
        shopId: p.shopId,
        merchantReference: p.merchantPayoutId,
        sequence: p.sequence,
        status: p.status,
        previousStatus: p.previousStatus,
        statusCode: p.statusCode,
        statusDescription: p.statusDescription,
        cost: p.cost,
      },
      p.callbackUrl,
    );
  }

  @EventPattern(P2pEventTypes.statusChanged)
  p2p(@Payload() message: Envelope): Promise<void> {
    const p = parsePayload(p2pStatusChanged, message.payload, message.type);
    return this.record(
      message,
      {
        type: 'p2p.status_changed',
        objectId: p.p2pId,
        shopId: p.shopId,
        merchantReference: p.merchantP2pId,
        sequence: p.sequence,
        status: p.status,
        previousStatus: p.previousStatus,
        statusCode: p.statusCode,
        statusDescription: p.statusDescription,
        cost: p.cost,
      },
      p.callbackUrl,
    );
  }

  private async record(message: Envelope, change: StatusChange, urlOverride: string | undefined): Promise<void> {
    const body = toCallbackBody(message.eventId, message.occurredAt, change);
    const outcome = await this.inbox.process(message, (m) =>
      this.deliveries.insert(m, { eventId: message.eventId, body, urlOverride: urlOverride ?? null }, this.clock.now()),
    );
    if (outcome.kind === 'processed') {
      this.logger.log(
        `${change.type} ${change.objectId} #${change.sequence} (${change.status}) queued for shop ${change.shopId} as delivery ${outcome.result}`,
      );
    }
  }
}
