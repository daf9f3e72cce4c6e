import { EntityManager } from 'typeorm';
import { envelope, Envelope, OrderEventTypes, OrderStatus, OrderStatusChanged, Topics } from '@payments/contracts';
import { Outbox, OutboxItem } from '@payments/messaging';
import { OrderEntity } from './order.entity';
import { writeTransitionedOrder } from './order.repository';
import { toStatusChanged } from './order-view';

/** The outbox row that tells of an order's status change. */
export function statusChangedItem(
  order: OrderEntity,
  previousStatus: OrderStatus | null,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
  ledgerFacts: Pick<OrderStatusChanged, 'provider' | 'refund'> = {},
): OutboxItem {
  return {
    topic: Topics.ordersEvents,
    key: order.id,
    envelope: envelope({
      type: OrderEventTypes.statusChanged,
      payload: toStatusChanged(order, previousStatus, ledgerFacts),
      occurredAt: now,
      causedBy,
    }),
  };
}

/** Records an order's status change in the outbox, in the transaction that made it. */
export async function publishStatusChange(
  outbox: Outbox,
  m: EntityManager,
  order: OrderEntity,
  previousStatus: OrderStatus | null,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
  ledgerFacts: Pick<OrderStatusChanged, 'provider' | 'refund'> = {},
): Promise<void> {
  await outbox.add(m, [statusChangedItem(order, previousStatus, now, causedBy, ledgerFacts)]);
}

export interface Transition {
  status: OrderStatus;
  statusCode: string;
  needActionReason?: OrderEntity['needActionReason'];
  /** Why the order waits, when it goes to need_action; cleared by any other transition. */
  needAction?: OrderEntity['needAction'];
  reportedAmount?: string;
  /** The amount that replaces the order amount; the original stays in `originalAmount`. */
  acceptedAmount?: string;
}

/** Moves a locked order to its next status in memory and bumps its sequence; returns the status it had. */
export function transitionInMemory(order: OrderEntity, t: Transition, now: Date): OrderStatus {
  const previous = order.status;
  order.status = t.status;
  order.statusCode = t.statusCode;
  order.needActionReason = t.needActionReason ?? null;
  order.needAction = t.needAction ?? null;
  if (t.reportedAmount !== undefined) order.reportedAmount = t.reportedAmount;
  if (t.acceptedAmount !== undefined) order.amount = t.acceptedAmount;
  order.sequence += 1;
  order.updatedAt = now;
  return previous;
}

/** Moves a locked order to its next status, bumps its sequence and records the event: one transaction. */
export async function applyTransition(
  outbox: Outbox,
  m: EntityManager,
  order: OrderEntity,
  t: Transition,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
  ledgerFacts: Pick<OrderStatusChanged, 'provider' | 'refund'> = {},
): Promise<void> {
  const previous = transitionInMemory(order, t, now);
  await writeTransitionedOrder(m, order);
  await publishStatusChange(outbox, m, order, previous, now, causedBy, ledgerFacts);
}
