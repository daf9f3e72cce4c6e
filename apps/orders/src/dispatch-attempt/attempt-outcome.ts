import type { OrderStatus } from '@payments/contracts';
import { assertNever } from '@payments/exhaustive';
import {
  explainTimeout,
  foldProviderEvent,
  NeedAction,
  NeedActionReason,
  OrderFacts,
  ShopRules,
  STRICT_RULES,
} from '@payments/orders-domain';
import { isKnownStatusCode, retryAllowed, type StatusCode } from '@payments/status-codes';
import { DispatchStatus, RetryPolicy, retryDelayMs } from '@payments/provider-dispatch';
import type { ProviderAnswer } from './payment-provider';

export { retryDelayMs };
export type { DispatchStatus, RetryPolicy };

export interface OrderMove {
  status: OrderStatus;
  statusCode: StatusCode;
  needActionReason: NeedActionReason | null;
  needAction: NeedAction | null;
}

export type AttemptOutcome =
  /** Record the attempt in `data.payments[]` and, when the order still waits for it, move the order. */
  | {
      kind: 'record';
      dispatch: Exclude<DispatchStatus, 'pending' | 'skipped'>;
      attempt: { status: 'pending' | 'failed'; statusCode: StatusCode };
      order: OrderMove | null;
      /**
       * Failover (decision 322): a new attempt, with a new payment id, to this provider; the order
       * stays as it is until that attempt answers.
       */
      failover?: { provider: string };
    }
  /** Send the same attempt again later. */
  | { kind: 'retry'; delayMs: number }
  /** Nothing reached the provider and the order no longer waits for this attempt. */
  | { kind: 'drop'; reason: string };

/**
 * An attempt is sent only while its order waits for it: a callback, an operator, the merchant
 * (cancel) or the processing timeout may have moved the order before the dispatcher got to it.
 */
export function shouldSend(orderStatus: OrderStatus): boolean {
  return orderStatus === 'registered';
}

/** The code of a refusal: the adapter's when it names one of the catalogue, else declined (2-07-01). */
export function refusalCode(answer: { statusCode?: string }): StatusCode {
  return answer.statusCode && isKnownStatusCode(answer.statusCode) ? answer.statusCode : '2-07-01';
}

/**
 * Whether the provider provably took nothing of this answer, so that another provider may take the
 * payment over (decision 322, amended): `unavailable` only when the adapter proves the request was
 * not taken (`notSent`: it never left, or 503/429), `refused` only when the adapter names a decline
 * code whose `retryAllowed` is true. An unnamed 4xx (400, 401, 403, 404)
 * or a 500/502/504/408 is no such proof.
 */
export function provablyNotTaken(answer: ProviderAnswer): boolean {
  if (answer.kind === 'unavailable') return answer.notSent === true;
  if (answer.kind === 'refused')
    return !!answer.statusCode && isKnownStatusCode(answer.statusCode) && retryAllowed(answer.statusCode);
  return false;
}

/**
 * Whether an order's attempt is a card attempt that may fail over (decision 322): its instrument is
 * `card` or it carries a hosted page's card, and it has no app instructions. An app payment's payer
 * holds the first provider's deeplinks and QR: another provider's attempt could never be approved
 * there, and the payer may still approve the first.
 */
export function isFailoverCandidate(order: {
  instrumentType: string | null;
  cardToken: string | null;
  instructions?: unknown;
}): boolean {
  return (order.instrumentType === 'card' || order.cardToken !== null) && order.instructions == null;
}

/**
 * Whether a new attempt still has time to be answered before the order's processing deadline
 * (decision 322): a failover with less than one provider call left would only be failed by the
 * processing timeout while the new provider may be taking the money. No deadline (crypto): time.
 */
export function timeForAnotherAttempt(
  order: { processingDeadline?: Date | null },
  now: Date,
  providerTimeoutMs: number,
): boolean {
  return !order.processingDeadline || order.processingDeadline.getTime() - now.getTime() > providerTimeoutMs;
}

/**
 * What the order's other sends say (decision 343): a failover is decided on every send of the
 * order, not on the last one alone.
 */
export interface SendHistory {
  /**
   * An earlier send of this attempt may have reached its provider: answered 500, 502, 504 or 408,
   * or never recorded (a crash or a lost claim between the send and its record).
   */
  earlierSendMayHaveReached: boolean;
  /**
   * Another attempt of the order may have taken the money: it was accepted or timed out, one of
   * its sends may have reached its provider, or its provider reported it `pending` or `success`.
   */
  otherAttemptMayHaveTaken: boolean;
}

/** Nothing before this send: the first send of the order's first attempt. */
export const NO_HISTORY: SendHistory = { earlierSendMayHaveReached: false, otherAttemptMayHaveTaken: false };

/**
 * Whether this send ends its attempt in a way another provider may take over (decision 322): a
 * card attempt of an order that still waits for it, which the provider provably did not take
 * (`provablyNotTaken`) — for `unavailable`, after the last send. Never an accepted or timed-out
 * attempt: the money may have been taken. And never when any other send of the order may have
 * taken it (decision 343, `history`): an earlier send of the same attempt that may have reached
 * the provider, or another attempt that may have the money; a second provider could charge the
 * payer again.
 */
export function mayFailOver(
  order: OrderFacts,
  answer: ProviderAnswer,
  sends: number,
  policy: RetryPolicy,
  card: boolean,
  history: SendHistory = NO_HISTORY,
): boolean {
  if (!card || !shouldSend(order.status) || !provablyNotTaken(answer)) return false;
  if (history.earlierSendMayHaveReached || history.otherAttemptMayHaveTaken) return false;
  return answer.kind === 'unavailable' ? sends >= policy.maxSends : true;
}

/**
 * What one send of an attempt means for the attempt and its order (the order as re-read under its
 * lock, after the send) and its shop's rules (for the explanation of a timeout). The order moves only from `registered`: if a callback got there first
 * (the provider can be faster than our bookkeeping), the attempt is recorded and the order stays
 * where the callback put it.
 */
export function decideAttemptOutcome(
  order: OrderFacts,
  answer: ProviderAnswer,
  sends: number,
  policy: RetryPolicy,
  rules: ShopRules,
  next: string | null = null,
): AttemptOutcome {
  const waiting = shouldSend(order.status);
  // `next`: the route's next fitting provider, asked for only when mayFailOver (decision 322).
  const failTo = next && waiting && provablyNotTaken(answer) ? next : null;
  switch (answer.kind) {
    case 'accepted': {
      // The same rule as a provider's `pending` report: registered → in_progress (1-01-02).
      const fold = foldProviderEvent(
        order,
        { status: 'pending', amount: order.amount, currency: order.currency, tokenStandard: order.tokenStandard },
        STRICT_RULES,
      );
      const move =
        waiting && fold.kind === 'transition'
          ? {
              status: fold.status,
              statusCode: fold.statusCode,
              needActionReason: fold.needActionReason,
              needAction: fold.needAction,
            }
          : null;
      return {
        kind: 'record',
        dispatch: 'accepted',
        attempt: { status: 'pending', statusCode: '1-01-02' },
        order: move,
      };
    }
    case 'timed_out':
      // The provider may have the payment: never sent again; its callback resolves the order.
      return {
        kind: 'record',
        dispatch: 'timed_out',
        attempt: { status: 'pending', statusCode: '1-07-02' },
        order: waiting
          ? {
              status: 'need_action',
              statusCode: '1-07-02',
              needActionReason: 'provider_timeout',
              needAction: explainTimeout(order, rules),
            }
          : null,
      };
    case 'unavailable':
      if (!waiting) return { kind: 'drop', reason: `order is ${order.status}; not sent again (${answer.reason})` };
      if (sends < policy.maxSends) return { kind: 'retry', delayMs: retryDelayMs(sends, policy) };
      return {
        kind: 'record',
        dispatch: 'gave_up',
        attempt: { status: 'failed', statusCode: '2-01-01' },
        order: failTo ? null : { status: 'failed', statusCode: '2-01-01', needActionReason: null, needAction: null },
        ...(failTo ? { failover: { provider: failTo } } : {}),
      };
    case 'refused': {
      const code = refusalCode(answer);
      const takeOver = failTo;
      const ends = waiting && !takeOver;
      return {
        kind: 'record',
        dispatch: 'refused',
        attempt: { status: 'failed', statusCode: code },
        order: ends ? { status: 'failed', statusCode: code, needActionReason: null, needAction: null } : null,
        ...(takeOver ? { failover: { provider: takeOver } } : {}),
      };
    }
    default:
      return assertNever(answer);
  }
}
