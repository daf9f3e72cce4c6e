import type { OrderStatus } from '@payments/contracts';
import { amountOf, currencyIdentity } from '@payments/money';
import type { StatusCode } from '@payments/status-codes';

export type RefundResult =
  | { kind: 'transition'; status: 'partially_refunded' | 'refunded'; statusCode: StatusCode; refundedTotal: string }
  | { kind: 'rejected'; reason: string; field?: 'cost.amount' | 'cost.currency' };

/**
 * A refund of a paid order, in part or in full; never more than what was paid in total.
 * `paid` is the order amount after any accepted difference.
 */
export function refund(
  order: { status: OrderStatus; amount: string; currency: string; tokenStandard: string | null },
  alreadyRefunded: string,
  request: { amount: string; currency: string; tokenStandard?: string | null },
): RefundResult {
  if (order.status !== 'completed' && order.status !== 'partially_refunded') {
    return { kind: 'rejected', reason: `only a paid order can be refunded; this one is ${order.status}` };
  }
  if (
    currencyIdentity(request.currency, request.tokenStandard) !== currencyIdentity(order.currency, order.tokenStandard)
  ) {
    return {
      kind: 'rejected',
      reason: `the refund must be in the order currency ${order.currency}${order.tokenStandard ? ` (${order.tokenStandard})` : ''}`,
      field: 'cost.currency',
    };
  }
  const paid = amountOf(order.amount);
  const total = amountOf(alreadyRefunded).plus(amountOf(request.amount));
  if (total.greaterThan(paid)) {
    const left = paid.minus(amountOf(alreadyRefunded)).toFixed();
    return {
      kind: 'rejected',
      reason: `exceeds what is left to refund (${left} ${order.currency} of ${paid.toFixed()} paid)`,
      field: 'cost.amount',
    };
  }
  return total.equals(paid)
    ? { kind: 'transition', status: 'refunded', statusCode: '0-07-03', refundedTotal: total.toFixed() }
    : { kind: 'transition', status: 'partially_refunded', statusCode: '0-07-02', refundedTotal: total.toFixed() };
}
