import type { OrderStatus, ProviderEvent } from '@payments/contracts';
import { PaymeErrorName } from './payme-errors';
import { fromTiyin, toTiyin } from './tiyin';

/** Payme's transaction states: 1 created, 2 performed, -1 cancelled before perform, -2 cancelled after (a refund). */
export type PaymeState = 1 | 2 | -1 | -2;

/** A created transaction not performed within 12 hours is cancelled (reason 4) and cannot be performed. */
export const PAYME_TIMEOUT_MS = 12 * 60 * 60 * 1000;
const REASON_TIMEOUT = 4;

export interface PaymeTransaction {
  /** Payme's id of the transaction. */
  id: string;
  orderId: string;
  /** In tiyin. */
  amount: number;
  state: PaymeState;
  /** Payme's `time` of CreateTransaction, ms since the epoch. */
  paymeTime: number;
  createTime: number;
  performTime: number;
  cancelTime: number;
  reason: number | null;
}

export type PaymeOrderState =
  { kind: 'not_found' } | { kind: 'found'; amount: string; currency: string; status: OrderStatus };

export type Refusal = { kind: 'error'; error: PaymeErrorName };
const refuse = (error: PaymeErrorName): Refusal => ({ kind: 'error', error });

/** CheckPerformTransaction: the order exists, is payable, in sums, and the amount is the order's. */
export function checkPerform(order: PaymeOrderState, amount: number): { kind: 'allow' } | Refusal {
  if (order.kind === 'not_found') return refuse('orderNotFound');
  if (order.status !== 'registered') return refuse('orderNotPayable');
  if (order.currency !== 'UZS' || toTiyin(order.amount) !== amount) return refuse('wrongAmount');
  return { kind: 'allow' };
}

const timedOut = (t: PaymeTransaction, now: number) => t.state === 1 && now - t.createTime > PAYME_TIMEOUT_MS;

export type CreateDecision =
  | { kind: 'answer'; transaction: PaymeTransaction }
  | { kind: 'create'; transaction: PaymeTransaction }
  /** The transaction ran out its 12 hours: cancel it (reason 4) and answer -31008. */
  | { kind: 'expire'; transaction: PaymeTransaction }
  | Refusal;

/** CreateTransaction: the same id again answers the first; another open one for the order is -31051. */
export function createTransaction(
  known: PaymeTransaction | null,
  openForOrder: PaymeTransaction | null,
  order: PaymeOrderState,
  p: { id: string; time: number; amount: number; account: { order_id: string } },
  now: number,
): CreateDecision {
  if (known) {
    if (known.state !== 1) return refuse('cannotPerform');
    if (timedOut(known, now)) return { kind: 'expire', transaction: cancelled(known, REASON_TIMEOUT, now) };
    return { kind: 'answer', transaction: known };
  }
  const check = checkPerform(order, p.amount);
  if (check.kind === 'error') return check;
  if (openForOrder) return refuse('orderBusy');
  return {
    kind: 'create',
    transaction: {
      id: p.id,
      orderId: p.account.order_id.toLowerCase(),
      amount: p.amount,
      state: 1,
      paymeTime: p.time,
      createTime: now,
      performTime: 0,
      cancelTime: 0,
      reason: null,
    },
  };
}

export type StateDecision =
  /** Nothing to write: answer from the transaction as it is. */
  | { kind: 'answer'; transaction: PaymeTransaction }
  /** Write the transaction as given (performed or cancelled) and answer from it. */
  | { kind: 'write'; transaction: PaymeTransaction }
  | { kind: 'expire'; transaction: PaymeTransaction }
  | Refusal;

/** PerformTransaction: performs a created one (the order is paid); a performed one answers again. */
export function performTransaction(t: PaymeTransaction | null, now: number): StateDecision {
  if (!t) return refuse('transactionNotFound');
  if (t.state === 2) return { kind: 'answer', transaction: t };
  if (t.state !== 1) return refuse('cannotPerform');
  if (timedOut(t, now)) return { kind: 'expire', transaction: cancelled(t, REASON_TIMEOUT, now) };
  return { kind: 'write', transaction: { ...t, state: 2, performTime: now } };
}

/**
 * CancelTransaction: a created one becomes -1; a performed one becomes -2 (a refund of the order)
 * when the order can still be refunded, else -31007; a cancelled one answers again.
 */
export function cancelTransaction(
  t: PaymeTransaction | null,
  reason: number,
  now: number,
  refundable: boolean,
): StateDecision {
  if (!t) return refuse('transactionNotFound');
  if (t.state === -1 || t.state === -2) return { kind: 'answer', transaction: t };
  if (t.state === 2 && !refundable) return refuse('cannotCancel');
  return { kind: 'write', transaction: cancelled(t, reason, now) };
}

function cancelled(t: PaymeTransaction, reason: number, now: number): PaymeTransaction {
  return { ...t, state: t.state === 2 ? -2 : -1, cancelTime: now, reason };
}

/** What each method answers about a transaction (`result` of the JSON-RPC answer). */
export const paymeResult = {
  create: (t: PaymeTransaction) => ({ create_time: t.createTime, transaction: t.id, state: t.state }),
  perform: (t: PaymeTransaction) => ({ transaction: t.id, perform_time: t.performTime, state: t.state }),
  cancel: (t: PaymeTransaction) => ({ transaction: t.id, cancel_time: t.cancelTime, state: t.state }),
  check: (t: PaymeTransaction) => ({
    create_time: t.createTime,
    perform_time: t.performTime,
    cancel_time: t.cancelTime,
    transaction: t.id,
    state: t.state,
    reason: t.reason,
  }),
  /** GetStatement: the transactions Payme created in [from, to], by Payme's time. */
  statement: (all: readonly PaymeTransaction[], from: number, to: number) => ({
    transactions: all
      .filter((t) => t.paymeTime >= from && t.paymeTime <= to)
      .map((t) => ({
        id: t.id,
        time: t.paymeTime,
        amount: t.amount,
        account: { order_id: t.orderId },
        create_time: t.createTime,
        perform_time: t.performTime,
        cancel_time: t.cancelTime,
        transaction: t.id,
        state: t.state,
        reason: t.reason,
      })),
  }),
};

/** What a performed Payme transaction tells the order: a paid attempt `payme_<id>`, in sums. */
export function paymePaidEvent(t: PaymeTransaction): Omit<ProviderEvent, 'receivedAt'> {
  return {
    providerCode: 'payme',
    providerEventId: `perform-${t.id}`,
    kind: 'payment',
    reference: t.orderId,
    paymentId: `payme_${t.id}`,
    status: 'success',
    amount: fromTiyin(t.amount),
    currency: 'UZS',
  };
}

/** What a performed Payme transaction cancelled after perform (state -2) refunds: all of it, in sums. */
export function paymeRefundCost(t: PaymeTransaction): { amount: string; currency: 'UZS' } {
  return { amount: fromTiyin(t.amount), currency: 'UZS' };
}
