import type { OrderStatusChanged, OrderView } from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { isKnownStatusCode, statusOf } from '@payments/status-codes';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';
import type { RefundRow } from './order.repository';

function describe(code: string | null): { statusCode?: string; statusDescription?: string } {
  return code && isKnownStatusCode(code) ? statusOf(code) : {};
}

export function toOrderView(
  order: OrderEntity,
  payments: PaymentAttemptEntity[],
  refunds: RefundRow[] = [],
): OrderView {
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
    },
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

export function toStatusChanged(
  order: OrderEntity,
  previousStatus: OrderStatusChanged['previousStatus'],
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
  };
}
