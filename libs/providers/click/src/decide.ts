import { amountOf } from '@payments/money';
import { assertNever } from '@payments/exhaustive';
import type { OrderStatus, ProviderEvent } from '@payments/contracts';
import { ClickErrorName } from './click-errors';

/** What the orders service said of the order Click names in `merchant_trans_id`. */
export type ClickOrderState =
  { kind: 'not_found' } | { kind: 'found'; shopId: string; amount: string; currency: string; status: OrderStatus };

/** Our record of one Click transaction (by `click_trans_id`), in callbacks-ingest. */
export interface ClickTransaction {
  clickTransId: string;
  orderId: string;
  amount: string;
  merchantPrepareId: string;
  state: 'prepared' | 'completed' | 'cancelled';
  merchantConfirmId: string | null;
}

/** Click pays in sums only. */
export const CLICK_CURRENCY = 'UZS';

const PAID: ReadonlySet<OrderStatus> = new Set(['completed', 'partially_refunded', 'refunded']);
const CLOSED: ReadonlySet<OrderStatus> = new Set(['cancelled', 'failed']);

/**
 * Whether the order can take Click's payment of `amount` for the shop the Click service belongs
 * to: unknown (or another shop's) -5, paid -4, cancelled or failed -9, another amount or currency
 * -2, a payment already under way by other means (in_progress, need_action) -7 (decision 292).
 */
export function orderPayability(
  order: ClickOrderState,
  shopId: string,
  amount: string,
): { kind: 'payable' } | { kind: 'refused'; error: ClickErrorName } {
  if (order.kind === 'not_found' || order.shopId !== shopId) return { kind: 'refused', error: 'userNotFound' };
  if (PAID.has(order.status)) return { kind: 'refused', error: 'alreadyPaid' };
  if (CLOSED.has(order.status)) return { kind: 'refused', error: 'transactionCancelled' };
  if (order.currency !== CLICK_CURRENCY || !amountOf(order.amount).equals(amountOf(amount)))
    return { kind: 'refused', error: 'incorrectAmount' };
  if (order.status !== 'registered') return { kind: 'refused', error: 'failedToUpdate' };
  return { kind: 'payable' };
}

export type PrepareDecision =
  /** The same Prepare again: the first answer, nothing written. */
  { kind: 'repeat'; transaction: ClickTransaction } | { kind: 'refuse'; error: ClickErrorName } | { kind: 'prepare' };

/** A Prepare whose signature and action were checked: repeat, refuse, or record a new transaction. */
export function decidePrepare(
  known: ClickTransaction | null,
  order: ClickOrderState,
  shopId: string,
  request: { merchant_trans_id: string; amount: string },
): PrepareDecision {
  if (known) {
    if (
      known.orderId !== request.merchant_trans_id.toLowerCase() ||
      !amountOf(known.amount).equals(amountOf(request.amount))
    )
      return { kind: 'refuse', error: 'badRequest' };
    return { kind: 'repeat', transaction: known };
  }
  const p = orderPayability(order, shopId, request.amount);
  return p.kind === 'payable' ? { kind: 'prepare' } : { kind: 'refuse', error: p.error };
}

export type CompleteDecision =
  /** Answer from the transaction as it is (a repeated Complete, or one for a closed transaction). */
  | { kind: 'repeat'; transaction: ClickTransaction }
  | { kind: 'refuse'; error: ClickErrorName }
  /** Click reports the payment failed, or the order can no longer take it: the transaction is cancelled. */
  | { kind: 'cancel'; error: ClickErrorName }
  /** The order is paid: complete the transaction and tell the order. */
  | { kind: 'complete' };

/**
 * A Complete whose signature and action were checked, given our transaction (locked) and, when
 * it matters, the order. `order` is asked only when the first steps leave it open (`needsOrder`).
 */
export function decideComplete(
  known: ClickTransaction | null,
  request: { merchant_trans_id: string; merchant_prepare_id: string; amount: string; error: string },
  order: ClickOrderState | undefined,
  shopId: string,
): CompleteDecision | { kind: 'needs_order' } {
  if (
    !known ||
    known.merchantPrepareId !== request.merchant_prepare_id ||
    known.orderId !== request.merchant_trans_id.toLowerCase()
  )
    return { kind: 'refuse', error: 'transactionNotFound' };
  if (!amountOf(known.amount).equals(amountOf(request.amount))) return { kind: 'refuse', error: 'incorrectAmount' };
  const clickFailed = Number(request.error) < 0;
  switch (known.state) {
    case 'completed':
      return clickFailed ? { kind: 'refuse', error: 'alreadyPaid' } : { kind: 'repeat', transaction: known };
    case 'cancelled':
      return { kind: 'refuse', error: 'transactionCancelled' };
    case 'prepared':
      break;
    default:
      return assertNever(known.state);
  }
  if (clickFailed) return { kind: 'cancel', error: 'transactionCancelled' };
  if (!order) return { kind: 'needs_order' };
  const p = orderPayability(order, shopId, request.amount);
  if (p.kind === 'payable') return { kind: 'complete' };
  // Closed for good: the transaction ends with it. Anything else may pass; Click may try again.
  return p.error === 'transactionCancelled' ? { kind: 'cancel', error: p.error } : { kind: 'refuse', error: p.error };
}

/** What a completed Click transaction tells the order: a paid attempt `click_<click_trans_id>`, in sums. */
export function clickPaidEvent(t: ClickTransaction): Omit<ProviderEvent, 'receivedAt'> {
  return {
    providerCode: 'click',
    providerEventId: `complete-${t.clickTransId}`,
    kind: 'payment',
    reference: t.orderId,
    paymentId: `click_${t.clickTransId}`,
    status: 'success',
    amount: t.amount,
    currency: CLICK_CURRENCY,
  };
}
