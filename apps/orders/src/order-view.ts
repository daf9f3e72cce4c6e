import type {
  CheckoutOrderView,
  CostDto,
  NeedActionView,
  OrderStatusChanged,
  OrderView,
  PaymentLinkStatus,
} from '@payments/contracts';
import type { MoneyFacts, NeedAction } from '@payments/orders-domain';
import { assertNever } from '@payments/exhaustive';
import { formatInCurrency } from '@payments/money';
import { isKnownStatusCode, statusOf } from '@payments/status-codes';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';
import type { RefundRow } from './order.repository';

function describe(code: string | null): { statusCode?: string; statusDescription?: string } {
  return code && isKnownStatusCode(code) ? statusOf(code) : {};
}

function cost(m: MoneyFacts): CostDto {
  return {
    amount: formatInCurrency(m.amount, m.currency),
    currency: m.currency,
    ...(m.tokenStandard ? { tokenStandard: m.tokenStandard } : {}),
  };
}

/** The explanation as merchants and operators read it: amounts at their currency's scale, the code described. */
export function toNeedActionView(n: NeedAction, statusCode: string | null): NeedActionView {
  const common = {
    ...describe(statusCode),
    statusCode: statusCode ?? '',
    expected: cost(n.expected),
    allowedRange: {
      lowerPercent: n.allowedRange.lowerPercent,
      upperPercent: n.allowedRange.upperPercent,
      lowerBound: formatInCurrency(n.allowedRange.lowerBound, n.expected.currency),
      upperBound: formatInCurrency(n.allowedRange.upperBound, n.expected.currency),
    },
    resolution: n.resolution,
  };
  switch (n.rule) {
    case 'amount_outside_range':
    case 'currency_differs':
    case 'duplicate_payment':
      return { rule: n.rule, ...common, reported: cost(n.reported) };
    case 'provider_timeout':
      return { rule: n.rule, ...common };
    default:
      return assertNever(n);
  }
}

/** Where a hosted order's one payment is; undefined for a host-to-host order. */
export function linkStatusOf(order: OrderEntity, now: Date): PaymentLinkStatus | undefined {
  if (!order.linkHash || !order.linkExpiresAt) return undefined;
  if (order.linkUsedAt) return 'used';
  if (order.status !== 'registered') return 'closed';
  return now.getTime() >= order.linkExpiresAt.getTime() ? 'expired' : 'live';
}

/** The hosted order as its payment page shows it: no payer data, the card masked. */
export function toCheckoutView(order: OrderEntity, now: Date): CheckoutOrderView {
  return {
    orderId: order.id,
    shopId: order.shopId,
    merchantOrderId: order.merchantOrderId,
    status: order.status,
    ...describe(order.statusCode),
    amount: formatInCurrency(order.amount, order.currency),
    currency: order.currency,
    ...(order.description ? { description: order.description } : {}),
    expiresAt: (order.linkExpiresAt ?? order.createdAt).toISOString(),
    linkStatus: linkStatusOf(order, now) ?? 'closed',
    ...(order.pageLocale ? { locale: order.pageLocale } : {}),
    ...(order.redirectUrls ? { redirectUrls: order.redirectUrls } : {}),
    ...(order.cardMasked ? { maskedCard: order.cardMasked } : {}),
    ...(order.instructions ? { instructions: order.instructions } : {}),
  };
}

export function toOrderView(
  order: OrderEntity,
  payments: PaymentAttemptEntity[],
  refunds: RefundRow[] = [],
  now = new Date(),
): OrderView {
  const linkStatus = linkStatusOf(order, now);
  return {
    id: order.id,
    shopId: order.shopId,
    status: order.status,
    ...describe(order.statusCode),
    order: {
      merchantOrderId: order.merchantOrderId,
      cost: {
        amount: formatInCurrency(order.amount, order.currency),
        currency: order.currency,
        ...(order.tokenStandard ? { tokenStandard: order.tokenStandard } : {}),
      },
      ...(formatInCurrency(order.originalAmount, order.currency) !== formatInCurrency(order.amount, order.currency)
        ? { originalCost: { amount: formatInCurrency(order.originalAmount, order.currency), currency: order.currency } }
        : {}),
      ...(order.status === 'need_action' && order.needActionReason === 'amount_mismatch' && order.reportedAmount
        ? { reportedCost: { amount: formatInCurrency(order.reportedAmount, order.currency), currency: order.currency } }
        : {}),
      ...(order.description ? { description: order.description } : {}),
    },
    ...(order.customerId ? { customer: { id: order.customerId } } : {}),
    ...(order.instrumentType ? { instrumentType: order.instrumentType } : {}),
    ...(order.paymentSettings ? { paymentSettings: order.paymentSettings } : {}),
    ...(order.payer ? { payer: order.payer } : {}),
    ...(order.recipient ? { recipient: order.recipient } : {}),
    ...(order.status === 'need_action' && order.needAction
      ? { needAction: toNeedActionView(order.needAction, order.statusCode) }
      : {}),
    data: {
      payments: payments.map((p) => ({
        paymentId: p.paymentId,
        provider: p.provider,
        status: p.status,
        ...(p.amount ? { amount: formatInCurrency(p.amount, p.currency ?? order.currency) } : {}),
        ...(p.currency ? { currency: p.currency } : {}),
        ...describe(p.statusCode),
        createdAt: p.createdAt.toISOString(),
        updatedAt: p.updatedAt.toISOString(),
      })),
      ...(refunds.length > 0
        ? {
            refunds: refunds.map((r) => ({
              refundId: r.refundId,
              amount: formatInCurrency(r.amount, r.currency),
              currency: r.currency,
              createdAt: r.createdAt.toISOString(),
            })),
          }
        : {}),
      ...(linkStatus === 'live' && order.linkExpiresAt ? { expiresAt: order.linkExpiresAt.toISOString() } : {}),
      ...(linkStatus ? { paymentLinkStatus: linkStatus } : {}),
      ...(order.instructions && !order.linkHash && (order.status === 'registered' || order.status === 'in_progress')
        ? { instructions: order.instructions }
        : {}),
    },
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

export function toStatusChanged(
  order: OrderEntity,
  previousStatus: OrderStatusChanged['previousStatus'],
  /** What the ledger books by that the order row does not hold: the provider, the refund. */
  ledgerFacts: Pick<OrderStatusChanged, 'provider' | 'refund'> = {},
): OrderStatusChanged {
  return {
    orderId: order.id,
    shopId: order.shopId,
    merchantOrderId: order.merchantOrderId,
    sequence: order.sequence,
    status: order.status,
    previousStatus,
    ...describe(order.statusCode),
    cost: {
      amount: formatInCurrency(order.amount, order.currency),
      currency: order.currency,
      ...(order.tokenStandard ? { tokenStandard: order.tokenStandard } : {}),
    },
    ...(order.callbackUrl ? { callbackUrl: order.callbackUrl } : {}),
    ...(order.instructions && !order.linkHash && order.status === 'registered'
      ? { instructions: order.instructions }
      : {}),
    ...(order.recipient?.merchantBalance ? { merchantBalance: order.recipient.merchantBalance } : {}),
    ...((order.pageMethod ?? order.instrumentType) ? { method: (order.pageMethod ?? order.instrumentType)! } : {}),
    ...ledgerFacts,
  };
}
