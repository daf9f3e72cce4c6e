import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CardBrand,
  CheckoutOrderView,
  CheckoutPayoutView,
  GetOrderForCheckoutQuery,
  GetPayoutForCheckoutQuery,
  MethodListView,
  MethodQueryTypes,
  OrderCommandTypes,
  PayoutCommandTypes,
  ResolvedPayoutMethod,
  ResolvePayoutMethodQuery,
  commandTopic,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { DEFAULT_PAGE_CARD_BRANDS, methodFits } from '@payments/methods-domain';
import { REQUEST_CLIENT } from './config';
import type { Outcome } from './page-replies';
import type { PageMethod } from './pages/order-page';
import type { PayoutPageMethod } from './pages/payout-page';

const METHODS_TTL_MS = 30_000;
/** A methods service that did not answer is asked again after this long: pages do not wait on it meanwhile. */
const METHODS_DOWN_TTL_MS = 5_000;

type ListedMethod = MethodListView['methods'][number];

/** What the pages ask of orders, payouts and methods, over Kafka request-reply. */
@Injectable()
export class CheckoutRequests {
  private readonly logger = new Logger('CheckoutRequests');
  private readonly methodsCache = new Map<
    string,
    { at: number; ttl: number; methods: { page: PageMethod; offer: ListedMethod }[] }
  >();

  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  readOrder(orderId: string, linkHash: string): Promise<Outcome<CheckoutOrderView>> {
    const query: GetOrderForCheckoutQuery = { orderId, linkHash };
    return this.ask<CheckoutOrderView>(
      commandTopic('orders', 'payer'),
      orderId,
      OrderCommandTypes.getForCheckout,
      query,
    );
  }

  readPayout(payoutId: string, linkHash: string): Promise<Outcome<CheckoutPayoutView>> {
    const query: GetPayoutForCheckoutQuery = { payoutId, linkHash };
    return this.ask<CheckoutPayoutView>(
      commandTopic('payouts', 'payer'),
      payoutId,
      PayoutCommandTypes.getForCheckout,
      query,
    );
  }

  /**
   * The shop's card and app methods that fit this order (`methodFits`), each with its brands; the
   * default brands of ARCHITECTURE.md section 8 when the shop configured no card method at all
   * (decisions 127, 189).
   */
  async paymentMethods(v: CheckoutOrderView): Promise<PageMethod[]> {
    const cached = this.methodsCache.get(v.shopId);
    let list = cached && Date.now() - cached.at < cached.ttl ? cached.methods : undefined;
    if (!list) {
      const answer = await this.ask<MethodListView>(
        commandTopic('methods', 'payer'),
        v.shopId,
        MethodQueryTypes.paymentList,
        {
          shopId: v.shopId,
        },
      );
      const all = answer.kind === 'ok' ? answer.value.methods : [];
      list = all
        .filter(
          (m) =>
            m.enabled &&
            ((m.dataEntryMode === 'card_form' && (m.cardBrands?.length ?? 0) > 0) ||
              (m.dataEntryMode === 'instruction' && m.provider === 'sandbox')),
        )
        .map((m) => ({
          page: {
            code: m.code,
            kind: m.dataEntryMode === 'instruction' ? ('app' as const) : ('card' as const),
            brands: (m.cardBrands ?? []) as CardBrand[],
          },
          offer: m,
        }));
      // No answer: the default card method for a few seconds, then the methods service is asked again.
      const ttl = answer.kind === 'ok' ? METHODS_TTL_MS : METHODS_DOWN_TTL_MS;
      this.methodsCache.set(v.shopId, { at: Date.now(), ttl, methods: list });
    }
    const fitting = list
      .filter((m) => methodFits(m.offer, { currency: v.currency, amount: v.amount }))
      .map((m) => m.page);
    const cards = fitting.filter((m) => m.kind === 'card');
    const apps = fitting.filter((m) => m.kind === 'app');
    return [
      // The default card method only for a shop with no card method at all (decision 189): a shop
      // whose card methods do not take this currency or amount gets none.
      ...(cards.length > 0 || list.some((m) => m.page.kind === 'card')
        ? cards
        : [{ code: 'card', kind: 'card' as const, brands: DEFAULT_PAGE_CARD_BRANDS }]),
      ...apps,
    ];
  }

  /** The shop's payout methods that fit the payout (`methodFits`: currency, token standard, amount). */
  async payoutMethods(v: CheckoutPayoutView): Promise<PayoutPageMethod[]> {
    const answer = await this.ask<MethodListView>(
      commandTopic('methods', 'payer'),
      v.shopId,
      MethodQueryTypes.payoutList,
      {
        shopId: v.shopId,
      },
    );
    if (answer.kind !== 'ok') return [];
    return answer.value.methods
      .filter((m) => methodFits(m, { currency: v.currency, tokenStandard: v.tokenStandard, amount: v.amount }))
      .map((m) => ({ code: m.code, instrumentType: m.instrumentType, brands: (m.cardBrands ?? []) as CardBrand[] }));
  }

  /** What methods says of a method for this payout (provider, fields), or undefined when it refuses it. */
  async resolvePayoutMethod(v: CheckoutPayoutView, method: string): Promise<ResolvedPayoutMethod | undefined> {
    const query: ResolvePayoutMethodQuery = {
      shopId: v.shopId,
      method,
      currency: v.currency,
      ...(v.tokenStandard ? { tokenStandard: v.tokenStandard } : {}),
      amount: v.amount,
    };
    const answer = await this.ask<ResolvedPayoutMethod>(
      commandTopic('methods', 'payer'),
      v.shopId,
      MethodQueryTypes.payoutResolve,
      query,
    );
    return answer.kind === 'ok' ? answer.value : undefined;
  }

  async ask<T>(topic: string, key: string, type: string, payload: unknown): Promise<Outcome<T>> {
    try {
      const reply = await this.client.request<T>(topic, key, type, payload);
      return reply.ok ? { kind: 'ok', value: reply.result } : { kind: 'refused', reply };
    } catch (err) {
      this.logger.warn(`${type} was not answered: ${(err as Error).message}`);
      return { kind: 'down' };
    }
  }
}
