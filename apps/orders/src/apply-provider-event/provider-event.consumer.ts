import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EntityManager } from 'typeorm';
import {
  ContractViolation,
  Envelope,
  parsePayload,
  ProviderEvent,
  providerEvent,
  ProviderEventTypes,
  UUID_PATTERN,
} from '@payments/contracts';
import { Inbox } from '@payments/messaging';
import { PaymentsMetrics } from '@payments/platform';
import { formatAmount } from '@payments/money';
import { FoldResult, foldProviderEvent } from '@payments/orders-domain';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_INBOX, ORDERS_OUTBOX } from '../tokens';
import { Outbox } from '@payments/messaging';

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

  /** Load, fold, persist with the outbox row, acknowledge: in the order of the order's partition. */
  @EventPattern(ProviderEventTypes.event)
  async apply(@Payload() message: Envelope): Promise<void> {
    const event = parsePayload(providerEvent, message.payload, message.type);
    if (event.kind !== 'payment') return; // payouts and P2P have their own services
    if (!UUID_PATTERN.test(event.reference))
      throw new ContractViolation(`reference "${event.reference}" is not an order id`);
    const now = this.clock.now();

    const outcome = await this.inbox.process(message, async (m) => {
      const order = await this.orders.findForUpdate(m, event.reference);
      if (!order) {
        // Counted where it is found out: callbacks-ingest cannot know our ids; the event is dead-lettered.
        PaymentsMetrics.providerCallbacks.inc({ provider: event.providerCode, result: 'unknown_reference' });
        throw new ContractViolation(`provider event for unknown order ${event.reference}`);
      }

      const { rules } = await this.shopSettings.forShop(m, order.shopId);
      const result = foldProviderEvent(order, event, rules);
      await this.recordAttempt(m, order, event, result, now);
      if (result.kind === 'noop') return result;
      await applyTransition(this.outbox, m, order, result, now, message);
      return result;
    });

    if (outcome.kind === 'duplicate') this.logger.log(`provider event ${message.eventId} already applied`);
    else if (outcome.result.kind === 'noop')
      this.logger.log(`order ${event.reference}: ${event.status} ignored (${outcome.result.reason})`);
  }

  /**
   * The provider's report on the attempt it names. A callback that does not name our payment id (a
   * manual or legacy one) belongs to the attempt we sent to that provider, not to a second one. A
   * repeated report that changes nothing leaves a known attempt as it is.
   */
  private async recordAttempt(
    m: EntityManager,
    order: OrderEntity,
    event: ProviderEvent,
    result: FoldResult,
    now: Date,
  ): Promise<void> {
    const paymentId =
      event.paymentId ??
      (await this.orders.latestDispatchedPaymentId(m, order.id, event.providerCode)) ??
      `${event.providerCode}-${order.id}`;
    const known = await this.orders.findAttempt(m, order.id, paymentId);
    if (known && result.kind === 'noop') return;
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
    // The order row is locked, so nobody records this attempt meanwhile: update or insert, no re-read.
    if (known) await this.orders.updateAttempt(m, attempt);
    else await this.orders.insertAttempt(m, attempt);
  }
}
