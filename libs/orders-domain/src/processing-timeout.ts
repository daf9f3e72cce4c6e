import type { OrderStatus } from '@payments/contracts';
import type { StatusCode } from '@payments/status-codes';
import { isFinal } from './order-status';

export interface TimeoutSettings {
  defaultSeconds: number;
  /** Overrides per payment setting (the order's instrument type). */
  byPaymentSetting: Record<string, number>;
}

/**
 * When a payment order fails for want of a terminal provider response (spec section 3): created
 * + the timeout of its shop and payment setting. Crypto payments have none; payouts and P2P are
 * not orders and never get here.
 */
export function processingDeadline(
  createdAt: Date,
  isCrypto: boolean,
  instrumentType: string | null,
  settings: TimeoutSettings,
): Date | null {
  if (isCrypto) return null;
  const seconds = (instrumentType ? settings.byPaymentSetting[instrumentType] : undefined) ?? settings.defaultSeconds;
  return new Date(createdAt.getTime() + seconds * 1000);
}

export type ExpiryResult =
  | { kind: 'transition'; status: 'failed'; statusCode: StatusCode }
  | { kind: 'noop'; reason: 'final' | 'not_due' | 'no_deadline' };

export function expireOrder(order: { status: OrderStatus; processingDeadline: Date | null }, now: Date): ExpiryResult {
  if (isFinal(order.status)) return { kind: 'noop', reason: 'final' };
  if (!order.processingDeadline) return { kind: 'noop', reason: 'no_deadline' };
  if (now.getTime() < order.processingDeadline.getTime()) return { kind: 'noop', reason: 'not_due' };
  return { kind: 'transition', status: 'failed', statusCode: '1-07-01' };
}
