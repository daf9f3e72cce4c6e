import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  CheckoutOrderView,
  Envelope,
  errorReply,
  getOrderForCheckoutQuery,
  okReply,
  OrderCommandTypes,
  parsePayload,
  payHostedCommand,
  Reply,
} from '@payments/contracts';
import { OrderEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { linkStatusOf, toCheckoutView } from '../order-view';
import { ProviderDispatchRepository } from '../dispatch-attempt/provider-dispatch.repository';
import { CLOCK, Clock } from '../tokens';
import { formatInCurrency } from '@payments/money';
import {
  PAYMENT_PROVIDER,
  PAYMENT_PROVIDERS,
  PaymentProvider,
  PaymentProviders,
} from '../dispatch-attempt/payment-provider';
import { firstProvider } from '../routing/route-choice';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';

class NoAppError extends Error {}

/** The same answer for a wrong token as for a missing order: a link is never confirmed by guessing. */
const NO_SUCH_LINK = errorReply({ code: 'not_found', detail: 'no such payment link' });

function sameHash(order: OrderEntity | null, linkHash: string): order is OrderEntity {
  if (!order?.linkHash) return false;
  const a = Buffer.from(order.linkHash, 'hex');
  const b = Buffer.from(linkHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Requests of the hosted payment page (apps/checkout): read the order, and its one payment. */
@Controller()
export class CheckoutHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly dispatches: ProviderDispatchRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly shopSettings: ShopSettingsRepository,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @Inject(PAYMENT_PROVIDERS) private readonly adapters: PaymentProviders,
  ) {}

  @MessagePattern(OrderCommandTypes.getForCheckout)
  async get(@Payload() message: Envelope): Promise<Reply<CheckoutOrderView>> {
    const q = parsePayload(getOrderForCheckoutQuery, message.payload, message.type);
    const order = await this.orders.findById(this.dataSource.manager, q.orderId);
    if (!sameHash(order, q.linkHash)) return NO_SUCH_LINK;
    const shop = await this.shopSettings.pageFacts(this.dataSource.manager, order.shopId);
    return okReply({ ...toCheckoutView(order, this.clock.now()), ...shop });
  }

  /**
   * The link's one payment. Under the order's row lock, so two tabs submitting at once are
   * serialized: the first marks the link used and queues the attempt, the second gets a conflict
   * and queues nothing.
   */
  @MessagePattern(OrderCommandTypes.payHosted)
  async pay(@Payload() message: Envelope): Promise<Reply<CheckoutOrderView>> {
    try {
      return await this.payOnce(message);
    } catch (err) {
      if (!(err instanceof NoAppError)) throw err;
      return errorReply({
        code: 'unprocessable',
        detail: err.message,
        errors: [{ path: 'method', message: err.message }],
      });
    }
  }

  private payOnce(message: Envelope): Promise<Reply<CheckoutOrderView>> {
    const cmd = parsePayload(payHostedCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const order = await this.orders.findForUpdate(m, cmd.orderId);
      if (!sameHash(order, cmd.linkHash)) return NO_SUCH_LINK;
      const status = linkStatusOf(order, now);
      if (status !== 'live')
        return errorReply({
          code: 'conflict',
          detail: status === 'used' ? 'this link was already paid once' : `this link is ${status}`,
          extensions: { linkStatus: status, status: order.status },
        });
      const app = cmd.dataEntryMode === 'instruction';
      if (!app && !cmd.card)
        return errorReply({
          code: 'invalid',
          detail: 'card: required',
          errors: [{ path: 'card', message: 'required' }],
        });
      // The provider by the shop's route for the page's method and the card's BIN (decision 321).
      const settings = await this.shopSettings.forShop(m, order.shopId);
      const provider = firstProvider(
        settings,
        { ...order, pageMethod: cmd.method, cardMasked: app ? null : (cmd.card?.masked ?? null) },
        this.provider.code,
      );
      const adapter = this.adapters.get(provider) ?? this.provider;
      const paymentId = await this.dispatches.enqueue(m, order, now, provider);
      const amount = formatInCurrency(order.amount, order.currency);
      const links = app
        ? adapter.deeplinks?.({ reference: order.id, paymentId, amount, currency: order.currency })
        : undefined;
      if (app && !links)
        // Nothing was written: the transaction rolls back with the refusal.
        throw new NoAppError(`the provider ${adapter.code} has no app for method ${cmd.method}`);
      order.linkUsedAt = now;
      order.pageMethod = cmd.method;
      order.cardToken = app ? null : (cmd.card?.token ?? null);
      order.cardMasked = app ? null : (cmd.card?.masked ?? null);
      order.instructions = links
        ? {
            method: cmd.method,
            amount,
            currency: order.currency,
            deeplinks: links,
            qr: links.universal,
          }
        : null;
      await this.orders.markLinkUsed(m, order);
      return okReply(toCheckoutView(order, now));
    });
  }
}
