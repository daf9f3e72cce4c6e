import { randomUUID } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  CreateOrderCommand,
  createOrderCommand,
  Envelope,
  errorReply,
  okReply,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { findCurrency, formatAmount, formatInCurrency, isCrypto } from '@payments/money';
import {
  PAYMENT_PROVIDER,
  PAYMENT_PROVIDERS,
  PaymentProvider,
  PaymentProviders,
} from '../dispatch-attempt/payment-provider';
import { firstProvider } from '../routing/route-choice';
import { PayerIdentity } from '../customers/customer.repository';
import { OrderEntity } from '../order.entity';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';
import { processingDeadline, TimeoutSettings } from '@payments/orders-domain';
import { OrderRepository } from '../order.repository';
import { newPaymentId, ProviderDispatchRepository } from '../dispatch-attempt/provider-dispatch.repository';
import { toOrderView } from '../order-view';
import { publishStatusChange, statusChangedItem } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { RegisteredOrderInsert } from './insert-registered';

function merchantOrderIdTaken(merchantOrderId: string, orderId: string): Reply<never> {
  return errorReply({
    code: 'conflict',
    detail: `order.merchantOrderId "${merchantOrderId}" is already used by order ${orderId} of this shop`,
    errors: [{ path: 'order.merchantOrderId', message: 'is already used by another order of this shop' }],
    extensions: { orderId },
  });
}

/** `payer.bankTransferData` takes effect only where the company uses customer data as payer information. */
function effectivePayer(
  payer: Record<string, unknown> | undefined,
  useCustomerDataAsPayer: boolean,
): Record<string, unknown> | undefined {
  if (!payer || useCustomerDataAsPayer || !('bankTransferData' in payer)) return payer;
  const { bankTransferData: _ignored, ...rest } = payer;
  return rest;
}

function isCryptoCode(code: string): boolean {
  const found = findCurrency(code);
  return found.kind === 'found' && isCrypto(found.currency);
}

/** A new order in `registered`, not yet stored (its customer id comes with the insert). */
function registeredOrder(
  cmd: CreateOrderCommand,
  payer: Record<string, unknown> | undefined,
  customerId: string | null,
  timeouts: TimeoutSettings,
  now: Date,
): OrderEntity {
  const crypto = isCryptoCode(cmd.cost.currency);
  return Object.assign(new OrderEntity(), {
    id: cmd.orderId,
    shopId: cmd.shopId,
    merchantOrderId: cmd.merchantOrderId,
    status: 'registered',
    statusCode: '1-01-01',
    amount: formatAmount(cmd.cost.amount),
    originalAmount: formatAmount(cmd.cost.amount),
    reportedAmount: null,
    currency: cmd.cost.currency,
    tokenStandard: cmd.cost.tokenStandard ?? null,
    needActionReason: null,
    description: cmd.description ?? null,
    payer: payer ?? null,
    customerId,
    processingDeadline: processingDeadline(now, crypto, cmd.instrumentType ?? null, timeouts),
    instrumentType: cmd.instrumentType ?? null,
    paymentSettings: cmd.paymentSettings ?? null,
    recipient: cmd.recipient ?? null,
    callbackUrl: cmd.callbackUrl ?? null,
    linkHash: cmd.hosted?.linkHash ?? null,
    linkExpiresAt: cmd.hosted ? new Date(cmd.hosted.expiresAt) : null,
    linkUsedAt: null,
    pageLocale: cmd.hosted?.locale ?? null,
    redirectUrls: cmd.hosted?.redirectUrls ?? null,
    cardToken: null,
    cardMasked: null,
    pageMethod: null,
    instructions: null,
    isCrypto: crypto,
    sequence: 1,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<OrderEntity>);
}

@Controller()
export class CreateOrderHandler {
  private readonly insert: RegisteredOrderInsert;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly shopSettings: ShopSettingsRepository,
    private readonly dispatches: ProviderDispatchRepository,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @Inject(PAYMENT_PROVIDERS) private readonly adapters: PaymentProviders,
    @Inject(ORDERS_CONFIG) config: OrdersConfig,
  ) {
    this.insert = new RegisteredOrderInsert(config.schema, dispatches.queue);
  }

  /**
   * shop_hosted: the adapter's deeplinks for the attempt just queued, kept on the order so that
   * the answer, the creation callback and GET show them; the provider waits for the payer's app.
   */
  private async withInstructions(
    m: EntityManager,
    order: OrderEntity,
    shopHosted: { method: string; expiresAt: string },
    attempt: { paymentId: string; provider: string },
  ): Promise<void> {
    const { paymentId } = attempt;
    const amount = formatInCurrency(order.amount, order.currency);
    const adapter = this.adapters.get(attempt.provider) ?? this.provider;
    const links = adapter.deeplinks?.({ reference: order.id, paymentId, amount, currency: order.currency });
    if (!links) return; // no app at this provider: the standard flow, as for any other method
    order.pageMethod = shopHosted.method;
    order.instructions = {
      method: shopHosted.method,
      amount,
      currency: order.currency,
      deeplinks: links,
      qr: links.universal,
    };
    await this.orders.markLinkUsed(m, order);
  }

  /**
   * Creates the order in `registered` with its event, atomically. Idempotent by order id: the
   * gateway resends the same id when a merchant retries with the same Idempotency-Key, and gets
   * the existing order back instead of a second one. A new order takes two statements (settings;
   * customer, order, attempt and event in one — decisions 217, 237), a shop_hosted one a
   * transaction (its deeplinks come between); a retry or a taken merchant order id reads what is
   * there once the insert found it taken.
   */
  @MessagePattern(OrderCommandTypes.create)
  async create(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(createOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    // shop_hosted asks the adapter for deeplinks between the insert and the event: a transaction.
    if (!cmd.shopHosted) return this.createInOneStatement(cmd, message, now);
    return this.dataSource.transaction(async (m) => {
      const settings = await this.shopSettings.forShop(m, cmd.shopId);
      const payer = effectivePayer(cmd.payer, settings.useCustomerDataAsPayer);
      const order = registeredOrder(cmd, payer, null, settings.timeouts, now);
      if (await this.insert.insert(m, order, (payer ?? {}) as PayerIdentity, randomUUID())) {
        // Sent to the provider after commit, off the merchant's request; a hosted order waits for its payer.
        // The provider by the shop's route for the method (decision 321), else the method's.
        const provider = firstProvider(settings, order, this.provider.code, cmd.shopHosted?.method ?? null);
        const paymentId = order.linkHash ? undefined : await this.dispatches.enqueue(m, order, now, provider);
        if (cmd.shopHosted && paymentId) await this.withInstructions(m, order, cmd.shopHosted, { paymentId, provider });
        await publishStatusChange(this.outbox, m, order, null, now, message);
        return okReply(toOrderView(order, []));
      }
      return this.alreadyThere(m, cmd);
    });
  }

  /** The answer to a create whose insert found the order id or the merchant order id taken. */
  private async alreadyThere(m: EntityManager, cmd: CreateOrderCommand): Promise<Reply<OrderView>> {
    const same = await this.orders.findOfShop(m, cmd.orderId, cmd.shopId);
    if (same) return okReply(toOrderView(same, await this.orders.payments(m, same.id)));
    const racing = await this.orders.findByMerchantOrderId(m, cmd.shopId, cmd.merchantOrderId);
    if (racing) return merchantOrderIdTaken(cmd.merchantOrderId, racing.id);
    // The id belongs to another shop's order: ids are random UUIDs, so this is a bug upstream.
    throw new Error(`order id ${cmd.orderId} collides with an order of another shop`);
  }

  /**
   * A new order in two round trips and no explicit transaction (decision 237): its shop's settings
   * (a plain read, as it was inside the transaction), then one statement that writes the customer,
   * the order, its queued attempt and its event together or — when the id or the merchant order
   * id is taken — nothing. The dispatcher and the relay of this process are woken once it has
   * committed; a retry reads what is there, as before.
   */
  private async createInOneStatement(cmd: CreateOrderCommand, message: Envelope, now: Date): Promise<Reply<OrderView>> {
    const m = this.dataSource.manager;
    const settings = await this.shopSettings.forShop(m, cmd.shopId);
    const payer = effectivePayer(cmd.payer, settings.useCustomerDataAsPayer);
    const order = registeredOrder(cmd, payer, null, settings.timeouts, now);
    // Sent to the provider after commit, off the merchant's request; a hosted order waits for its payer.
    const attempt = order.linkHash
      ? null
      : {
          paymentId: newPaymentId(),
          // By the shop's route (read with its settings, decision 321), else the method's provider.
          provider: firstProvider(settings, order, this.provider.code),
          amount: order.amount,
          currency: order.currency,
          tokenStandard: order.tokenStandard,
        };
    const event = statusChangedItem(order, null, now, message);
    if (
      await this.insert.insert(m, order, (payer ?? {}) as PayerIdentity, randomUUID(), {
        attempt,
        events: [event],
        now,
      })
    ) {
      if (attempt) this.dispatches.wake(m);
      this.outbox.wake(m);
      return okReply(toOrderView(order, []));
    }
    return this.alreadyThere(m, cmd);
  }
}
