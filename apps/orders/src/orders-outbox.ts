import { EntityManager } from 'typeorm';
import { envelope, Envelope, OrderEventTypes, OrderStatus, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { OrderEntity } from './order.entity';
import { toStatusChanged } from './order-view';

/** Records an order's status change in the outbox, in the transaction that made it. */
export async function publishStatusChange(
  outbox: Outbox,
  m: EntityManager,
  order: OrderEntity,
  previousStatus: OrderStatus | null,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
): Promise<void> {
  await outbox.add(m, [{
    topic: Topics.ordersEvents,
    key: order.id,
    envelope: envelope({ type: OrderEventTypes.statusChanged, payload: toStatusChanged(order, previousStatus), occurredAt: now, causedBy }),
  }]);
}
