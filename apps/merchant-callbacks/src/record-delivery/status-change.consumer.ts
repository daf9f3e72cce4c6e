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
import { BATCH_HANDLER, BatchMessageFailure, Inbox } from '@payments/messaging';
import { StatusChange, toCallbackBody } from '@payments/merchant-callbacks-domain';
import { DeliveryRepository } from '../deliver/delivery.repository';
import { CLOCK, Clock, MERCHANT_CALLBACKS_INBOX } from '../tokens';

/** A consumed status change, as the delivery it becomes. */
interface Change {
  message: Envelope;
  change: StatusChange;
  urlOverride: string | null;
}

/**
 * Consuming only records deliveries: the HTTP call to the merchant happens later in the delivery
 * worker, so a slow or dead merchant never holds up the partition, and the offset is committed
 * only once the deliveries are durable. Each of the three topics carries one type, so a handler
 * gets a partition batch's messages in offset order (decision 210) and records them with their
 * inbox rows in one statement (decisions 233, 243).
 */
@Controller()
export class StatusChangeConsumer {
  private readonly logger = new Logger(StatusChangeConsumer.name);

  constructor(
    @Inject(MERCHANT_CALLBACKS_INBOX) private readonly inbox: Inbox,
    private readonly deliveries: DeliveryRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @EventPattern(OrderEventTypes.statusChanged, BATCH_HANDLER)
  order(@Payload() messages: Envelope[]): Promise<void> {
    return this.record(messages, (message) => {
      const p = parsePayload(orderStatusChanged, message.payload, message.type);
      return changeOf('order.status_changed', p.orderId, p.merchantOrderId, p, p.instructions);
    });
  }

  @EventPattern(PayoutEventTypes.statusChanged, BATCH_HANDLER)
  payout(@Payload() messages: Envelope[]): Promise<void> {
    return this.record(messages, (message) => {
      const p = parsePayload(payoutStatusChanged, message.payload, message.type);
      return changeOf('payout.status_changed', p.payoutId, p.merchantPayoutId, p);
    });
  }

  @EventPattern(P2pEventTypes.statusChanged, BATCH_HANDLER)
  p2p(@Payload() messages: Envelope[]): Promise<void> {
    return this.record(messages, (message) => {
      const p = parsePayload(p2pStatusChanged, message.payload, message.type);
      return changeOf('p2p.status_changed', p.p2pId, p.merchantP2pId, p);
    });
  }

  /**
   * A batch's changes in one statement with their inbox record (decision 243). A duplicate
   * (already recorded, or repeated within the batch) is left out; the rest keep their offset
   * order, which is each object's sequence order as published.
   */
  private async record(messages: Envelope[], read: (message: Envelope) => Omit<Change, 'message'>): Promise<void> {
    const changes = messages.map((message) => parse(message, () => read(message)));
    if (changes.length === 0) return;
    const now = this.clock.now();
    const seen = new Set<string>();
    const once = changes.filter(({ message }) => {
      const id = message.eventId.toLowerCase();
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const recorded = await this.deliveries.insertFresh(
      once.map(({ message, change, urlOverride }) => ({
        eventId: message.eventId,
        body: toCallbackBody(message.eventId, message.occurredAt, change),
        urlOverride,
      })),
      this.inbox.cte(
        'ib',
        once.map((c) => c.message),
      ),
      now,
    );
    for (const { message, change } of once) {
      const id = recorded.get(message.eventId.toLowerCase());
      // One a status change: routine, so debug (the delivery log has it).
      if (id)
        this.logger.debug(
          `${change.type} ${change.objectId} #${change.sequence} (${change.status}) queued for shop ${change.shopId} as delivery ${id}`,
        );
    }
  }
}

/** A message's change; one that breaks its contract is named, so it alone is dead-lettered. */
function parse(message: Envelope, read: () => Omit<Change, 'message'>): Change {
  try {
    return { message, ...read() };
  } catch (err) {
    throw new BatchMessageFailure(message.eventId, err);
  }
}

/** What the three status-change events share, as the callback body and the delivery take them. */
type StatusFields = Pick<
  StatusChange,
  'shopId' | 'sequence' | 'status' | 'previousStatus' | 'statusCode' | 'statusDescription' | 'cost'
> & {
  callbackUrl?: string;
};

function changeOf(
  type: StatusChange['type'],
  objectId: string,
  merchantReference: string,
  p: StatusFields,
  instructions?: StatusChange['instructions'],
): Omit<Change, 'message'> {
  return {
    change: {
      type,
      objectId,
      shopId: p.shopId,
      merchantReference,
      sequence: p.sequence,
      status: p.status,
      previousStatus: p.previousStatus,
      statusCode: p.statusCode,
      statusDescription: p.statusDescription,
      cost: p.cost,
      ...(instructions ? { instructions } : {}),
    },
    urlOverride: p.callbackUrl ?? null,
  };
}
