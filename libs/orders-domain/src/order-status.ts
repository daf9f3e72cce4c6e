import type { OrderStatus } from '@payments/contracts';

export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set([
  'completed',
  'partially_refunded',
  'refunded',
  'cancelled',
  'failed',
]);

/** Final orders take no more provider events; `completed` and `partially_refunded` still take refunds. */
export function isFinal(status: OrderStatus): boolean {
  return FINAL_STATUSES.has(status);
}
