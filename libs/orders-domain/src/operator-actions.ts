import type { OrderStatus } from '@payments/contracts';
import type { StatusCode } from '@payments/status-codes';
import type { NeedActionReason } from './fold-provider-event';
import { isFinal } from './order-status';

export type OperatorAction = 'accept_reported_amount' | 'fail';

export type OperatorResult =
  | { kind: 'transition'; status: OrderStatus; statusCode: StatusCode; acceptedAmount?: string }
  | { kind: 'rejected'; reason: string };

/**
 * Technical support resolves an order in need_action by hand: accept the amount the provider
 * reported (an amount mismatch only — a different currency is never accepted), or fail it.
 */
export function resolveByOperator(
  order: { status: OrderStatus; needActionReason: NeedActionReason | null; reportedAmount: string | null },
  action: OperatorAction,
): OperatorResult {
  if (order.status !== 'need_action') return { kind: 'rejected', reason: `order is ${order.status}, not need_action` };
  if (action === 'fail') return { kind: 'transition', status: 'failed', statusCode: '1-07-03' };
  if (order.needActionReason !== 'amount_mismatch' || !order.reportedAmount) {
    return {
      kind: 'rejected',
      reason: `nothing to accept: the order waits because of ${order.needActionReason ?? 'unknown reason'}; fail it instead`,
    };
  }
  return { kind: 'transition', status: 'completed', statusCode: '1-07-04', acceptedAmount: order.reportedAmount };
}

export type CancelResult =
  { kind: 'transition'; status: 'cancelled'; statusCode: StatusCode } | { kind: 'rejected'; reason: string };

/** A merchant cancels an order that is not final (spec: cancel replaces the removed reject). */
export function cancelOrder(order: { status: OrderStatus }): CancelResult {
  if (isFinal(order.status)) return { kind: 'rejected', reason: `order is already ${order.status}` };
  return { kind: 'transition', status: 'cancelled', statusCode: '1-08-01' };
}
