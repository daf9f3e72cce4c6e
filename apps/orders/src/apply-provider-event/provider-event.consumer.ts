import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  ContractViolation,
  Envelope,
  parsePayload,
  ProviderEvent,
  providerEvent,
  ProviderEventTypes,
  UUID_PATTERN,
} from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox, Outbox, OutboxItem } from '@payments/messaging';
import { PaymentsMetrics } from '@payments/platform';
import { formatAmount } from '@payments/money';
import { FoldResult, foldProviderEvent } from '@payments/orders-domain';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { statusChangedItem, transitionInMemory } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_INBOX, ORDERS_OUTBOX } from '../tokens';

type PaymentEvent = ProviderEvent;

interface Applied {
  message: Envelope;
  event: PaymentEvent;
  orderId: string;
}

@Controller()
export class ProviderEventConsumer {
  private readonly logger = new Logger(ProviderEventConsumer.name);

  constructor(
    private readonly orders: OrderRepository,
    @Inject(ORDERS_INBOX) private readonly inbox: Inbox,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly shopSettings: ShopSettingsRepository,
  ) {}

  /**
   * A partition's provider events in one transaction: record them in the inbox, lock the orders
   * they name, fold each in offset order in memory, write the orders, attempts and outbox rows,
   * commit. A message at fault is named (BatchMessageFailure) and the transport retries the rest.
   */
  @EventPattern(ProviderEventTypes.event, BATCH_HANDLER)
  async apply(@Payload() messages: Envelope[]): Promise<void> {
    const events = messages.flatMap((message) => this.parse(message));
    if (events.length === 0) return;
    const now = this.clock.now();

    const { fresh } = await this.inbox.processBatch(
      events.map((e) => e.message),
      async (m, fresh) => {
        const seen = new Set<string>();
        const todo = events.filter((e) => {
          const id = e.message.eventId.toLowerCase();
          if (!fresh.has(id) || seen.has(id)) return false;
          seen.add(id);
          return true;
        });
        if (todo.length === 0) return;
        const orderIds = [...new Set(todo.map((e) => e.orderId))];
        const orders = await this.orders.lockMany(m, orderIds);
        for (const e of todo) {
          if (orders.has(e.orderId)) continue;
          // Counted where it is found out: callbacks-ingest cannot know our ids; the event is dead-lettered.
          PaymentsMetrics.providerCallbacks.inc({ provider: e.event.providerCode, result: 'unknown_reference' });
          throw new BatchMessageFailure(
            e.message.eventId,
            new ContractViolation(`provider event for unknown order ${e.event.reference}`),
          );
        }
        const settings = await this.shopSettings.forShops(m, [...new Set([...orders.values()].map((o) => o.shopId))]);
        const dispatched = todo.some((e) => !e.event.paymentId)
          ? await this.orders.latestDispatchedPaymentIds(m, orderIds)
          : new Map<string, string>();
        const attempts = await this.orders.attemptsOf(m, orderIds);

        const changedOrders = new Set<OrderEntity>();
        const changedAttempts = new Set<PaymentAttemptEntity>();
        const outboxItems: OutboxItem[] = [];
        for (const { message, event, orderId } of todo) {
          const order = orders.get(orderId)!;
          const result = foldProviderEvent(order, event, settings.get(order.shopId)!.rules);
          const attempt = recordAttempt(attempts, dispatched, order, event, result, now);
          if (attempt) changedAttempts.add(attempt);
          if (result.kind === 'noop') {
            this.logger.log(`order ${event.reference}: ${event.status} ignored (${result.reason})`);
            continue;
          }
          const previous = transitionInMemory(order, result, now);
          changedOrders.add(order);
          outboxItems.push(statusChangedItem(order, previous, now, message));
        }
        await this.orders.upsertAttempts(m, [...changedAttempts]);
        await this.orders.writeTransitionedOrders(m, [...changedOrders]);
        await this.outbox.add(m, outboxItems);
      },
    );

    for (const { message } of events)
      if (!fresh.has(message.eventId.toLowerCase()))
        this.logger.log(`provider event ${message.eventId} already applied`);
  }

  /** The payment event a message carries ([] for payouts and P2P: they have their own services). */
  private parse(message: Envelope): Applied[] {
    try {
      const event = parsePayload(providerEvent, message.payload, message.type);
      if (event.kind !== 'payment') return [];
      if (!UUID_PATTERN.test(event.reference))
        throw new ContractViolation(`reference "${event.reference}" is not an order id`);
      return [{ message, event, orderId: event.reference.toLowerCase() }];
    } catch (err) {
      throw new BatchMessageFailure(message.eventId, err);
    }
  }
}

/**
 * The provider's report on the attempt it names, in memory; returns the attempt to write, if any.
 * A callback that does not name our payment id (a manual or legacy one) belongs to the attempt we
 * sent to that provider, not to a second one. A repeated report that changes nothing leaves a
 * known attempt as it is.
 */
function recordAttempt(
  attempts: Map<string, PaymentAttemptEntity>,
  dispatched: Map<string, string>,
  order: OrderEntity,
  event: PaymentEvent,
  result: FoldResult,
  now: Date,
): PaymentAttemptEntity | undefined {
  const paymentId =
    event.paymentId ?? dispatched.get(`${order.id} ${event.providerCode}`) ?? `${event.providerCode}-${order.id}`;
  const key = `${order.id} ${paymentId}`;
  const known = attempts.get(key);
  if (known && result.kind === 'noop') return undefined;
  const attempt =
    known ??
    Object.assign(new PaymentAttemptEntity(), {
      orderId: order.id,
      paymentId,
      provider: event.providerCode,
      createdAt: now,
    } satisfies Partial<PaymentAttemptEntity>);
  attempt.status = event.status;
  attempt.amount = formatAmount(event.amount);
  attempt.currency = event.currency;
  attempt.statusCode = result.kind === 'transition' ? result.statusCode : (attempt.statusCode ?? null);
  attempt.updatedAt = now;
  attempts.set(key, attempt);
  return attempt;
}
