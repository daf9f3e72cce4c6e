import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
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
import { foldAttemptEvent, FoldResult } from '@payments/orders-domain';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { ProviderEventFoldRepository } from './provider-event-fold.repository';
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
    private readonly fold: ProviderEventFoldRepository,
    @Inject(ORDERS_INBOX) private readonly inbox: Inbox,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly shopSettings: ShopSettingsRepository,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * A partition's provider events in one transaction of two statements: the first records them in
   * the inbox and locks the orders they name; the events seen for the first time are folded in
   * offset order in memory; the second writes the attempts, the orders and the outbox rows
   * (docs/decisions.md 245). A message at fault is named (BatchMessageFailure) and the transport
   * retries the rest.
   */
  @EventPattern(ProviderEventTypes.event, BATCH_HANDLER)
  async apply(@Payload() messages: Envelope[]): Promise<void> {
    const events = messages.flatMap((message) => this.parse(message));
    if (events.length === 0) return;
    const now = this.clock.now();

    const fresh = await this.dataSource.transaction(async (m) => {
      const locked = await this.fold.lockForEvents(
        m,
        this.inbox.cte(
          'fresh',
          events.map((e) => e.message),
        ),
        [...new Set(events.map((e) => e.orderId))],
      );
      const { orders } = locked;
      const seen = new Set<string>();
      const todo = events.filter((e) => {
        const id = e.message.eventId.toLowerCase();
        if (!locked.fresh.has(id) || seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      if (todo.length === 0) return locked.fresh;
      for (const e of todo) {
        if (orders.has(e.orderId)) continue;
        // Counted where it is found out: callbacks-ingest cannot know our ids; the event is dead-lettered.
        PaymentsMetrics.providerCallbacks.inc({ provider: e.event.providerCode, result: 'unknown_reference' });
        throw new BatchMessageFailure(
          e.message.eventId,
          new ContractViolation(`provider event for unknown order ${e.event.reference}`),
        );
      }
      const todoOrders = [...new Set(todo.map((e) => e.orderId))];
      const settings = await this.shopSettings.forShops(m, [
        ...new Set(todoOrders.map((id) => orders.get(id)!.shopId)),
      ]);
      const dispatched = todo.some((e) => !e.event.paymentId)
        ? await this.orders.latestDispatchedPaymentIds(m, todoOrders)
        : new Map<string, string>();

      const attempts = new Map<string, AttemptWrite>();
      const changedOrders = new Set<OrderEntity>();
      const outboxItems: OutboxItem[] = [];
      for (const { message, event, orderId } of todo) {
        const order = orders.get(orderId)!;
        const paymentId = paymentIdOf(dispatched, order, event);
        // Decision 322: an attempt a failover replaced (the order has a newer one) moves only itself.
        const ours = locked.attempts.get(orderId) ?? [];
        const superseded = ours.indexOf(paymentId) > 0;
        // While two attempts may both have paid, every report shows on its attempt for the operator.
        const writeOver =
          superseded || (order.status === 'need_action' && order.needActionReason === 'duplicate_payment');
        const result = foldAttemptEvent(order, event, settings.get(order.shopId)!.rules, { superseded });
        recordAttempt(attempts, paymentId, order, event, result, now, writeOver);
        if (superseded && event.status === 'success' && result.kind === 'noop') {
          // The order is final: it stays, and the attempt says 2-07-07 in data.payments[] for an operator.
          PaymentsMetrics.providerCallbacks.inc({ provider: event.providerCode, result: 'duplicate_payment' });
          this.logger.warn(
            `order ${event.reference}: success of superseded attempt ${paymentId} while the order is ${order.status} (possible duplicate payment, 2-07-07)`,
          );
        }
        if (result.kind === 'noop') {
          this.logger.log(`order ${event.reference}: ${event.status} ignored (${result.reason})`);
          continue;
        }
        const previous = transitionInMemory(order, result, now);
        changedOrders.add(order);
        outboxItems.push(statusChangedItem(order, previous, now, message, { provider: event.providerCode }));
      }
      const written = [...attempts.values()];
      await this.fold.writeFold(m, this.outbox, {
        seen: written.filter((w) => !w.changed).map((w) => w.attempt),
        changed: written.filter((w) => w.changed).map((w) => w.attempt),
        orders: [...changedOrders],
        events: outboxItems,
      });
      return locked.fresh;
    });

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

/** What a batch writes of one attempt: `changed` by a transition (written over), or only seen (written if absent). */
interface AttemptWrite {
  attempt: PaymentAttemptEntity;
  changed: boolean;
}

/**
 * Our payment id of the attempt a report is about. A callback that does not name our payment id
 * (a manual or legacy one) belongs to the attempt we sent to that provider, not to a second one.
 */
function paymentIdOf(dispatched: Map<string, string>, order: OrderEntity, event: PaymentEvent): string {
  return event.paymentId ?? dispatched.get(`${order.id} ${event.providerCode}`) ?? `${event.providerCode}-${order.id}`;
}

/**
 * The code of an attempt's report that did not move the order, on an attempt a failover replaced
 * or of an order waiting for an operator because two attempts may have paid (decision 322).
 */
const SUPERSEDED_CODES = { pending: '1-01-02', failed: '2-07-01', success: '2-07-07' } as const;

/**
 * The provider's report on the attempt it names, in memory. The attempt's row ends as the batch's
 * last transition left it, or, with none, as its first report found it when the row did not exist
 * yet; a report that changes nothing leaves a known attempt as it is, unless `writeOver` (an
 * attempt a failover replaced, or an order in need_action duplicate_payment): then every report
 * is written over it, since the order did not move and the attempt is the only place it shows,
 * unless it says what the row already says (a provider's repeat changes nothing, not even
 * `updated_at`: decision 350). So the batch needs no read of the attempts: the write's ON
 * CONFLICT decides "known" and "the same" against the committed rows.
 */
function recordAttempt(
  attempts: Map<string, AttemptWrite>,
  paymentId: string,
  order: OrderEntity,
  event: PaymentEvent,
  result: FoldResult,
  now: Date,
  writeOver: boolean,
): void {
  const key = `${order.id} ${paymentId}`;
  const changed = result.kind === 'transition' || writeOver;
  if (attempts.has(key) && !changed) return;
  const attempt = Object.assign(new PaymentAttemptEntity(), {
    orderId: order.id,
    paymentId,
    provider: event.providerCode,
    status: event.status,
    amount: formatAmount(event.amount),
    currency: event.currency,
    statusCode: result.kind === 'transition' ? result.statusCode : writeOver ? SUPERSEDED_CODES[event.status] : null,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<PaymentAttemptEntity>);
  attempts.set(key, { attempt, changed });
}
