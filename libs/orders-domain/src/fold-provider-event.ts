import type { OrderStatus, ProviderStatus } from '@payments/contracts';
import { amountOf, currencyIdentity } from '@payments/money';
import type { StatusCode } from '@payments/status-codes';
import { assertNever } from '@payments/exhaustive';
import { isFinal } from './order-status';
import { allowedRange, explainDuplicate, explainMismatch, NeedAction } from './need-action';

export type NeedActionReason = 'amount_mismatch' | 'currency_mismatch' | 'provider_timeout' | 'duplicate_payment';

/** What the fold needs to know of an order. */
export interface OrderFacts {
  status: OrderStatus;
  amount: string;
  currency: string;
  tokenStandard?: string | null;
  needActionReason?: NeedActionReason | null;
}

/** The shop's rules for callbacks, set by operators (ARCHITECTURE.md section 4). */
export interface ShopRules {
  /** Allowed deviation of a reported amount, in percent of the order amount, below and above. */
  amountDeviation: { lowerPercent: string; upperPercent: string };
  autoFinalizeNeedAction: boolean;
}

export const STRICT_RULES: ShopRules = {
  amountDeviation: { lowerPercent: '0', upperPercent: '0' },
  autoFinalizeNeedAction: false,
};

/** A provider's report, already normalized to our vocabulary. */
export interface ProviderReport {
  status: ProviderStatus;
  amount: string;
  currency: string;
  tokenStandard?: string | null;
}

export type FoldResult =
  | {
      kind: 'transition';
      status: OrderStatus;
      statusCode: StatusCode;
      /** Set when the reported amount replaces the order amount (the original is kept by the caller). */
      acceptedAmount?: string;
      /** Set when the order waits for action; cleared (null) when it leaves need_action. */
      needActionReason: NeedActionReason | null;
      /** Why the order waits in need_action (set exactly when it goes there); null when it leaves. */
      needAction: NeedAction | null;
      /** The amount the provider reported, when it differs from the order. */
      reportedAmount?: string;
    }
  | { kind: 'noop'; reason: NoopReason };

export type NoopReason =
  /** The order is final; late and stale events never move it. */
  | 'order_final'
  /** The event says what the order already says. */
  | 'no_change'
  /** The order waits in need_action for an operator (auto-finalization is off, or nothing new came). */
  | 'awaiting_operator'
  /** Another report with the same mismatch. */
  | 'still_mismatched'
  /** A `pending` or `failed` report on an attempt a failover replaced: it moves the attempt only (decision 322). */
  | 'superseded_attempt';

type Match =
  | { kind: 'exact' }
  | { kind: 'within_range'; amount: string }
  | { kind: 'amount_mismatch' }
  | { kind: 'currency_mismatch' };

function compare(order: OrderFacts, report: ProviderReport, rules: ShopRules): Match {
  if (
    currencyIdentity(report.currency, report.tokenStandard) !== currencyIdentity(order.currency, order.tokenStandard)
  ) {
    return { kind: 'currency_mismatch' };
  }
  const expected = amountOf(order.amount);
  const reported = amountOf(report.amount);
  if (reported.equals(expected)) return { kind: 'exact' };
  const range = allowedRange(order.amount, rules);
  return reported.greaterThanOrEqualTo(amountOf(range.lowerBound)) &&
    reported.lessThanOrEqualTo(amountOf(range.upperBound))
    ? { kind: 'within_range', amount: reported.toFixed() }
    : { kind: 'amount_mismatch' };
}

function needAction(
  order: OrderFacts,
  reason: 'amount_mismatch' | 'currency_mismatch',
  report: ProviderReport,
  rules: ShopRules,
): FoldResult {
  if (order.status === 'need_action' && order.needActionReason === reason)
    return { kind: 'noop', reason: 'still_mismatched' };
  return {
    kind: 'transition',
    status: 'need_action',
    statusCode: '2-07-04',
    needActionReason: reason,
    needAction: explainMismatch(
      reason === 'amount_mismatch' ? 'amount_outside_range' : 'currency_differs',
      order,
      report,
      rules,
    ),
    reportedAmount: report.amount,
  };
}

/**
 * Folds one provider event into an order: the rules of the spec (section 3) and of
 * ARCHITECTURE.md section 4, all of them. Pure: same input, same answer.
 *
 * Amount and currency are checked on `success` only: a `pending` report is not yet a payment, and
 * a `failed` one moved no money, so neither can be "a payment of a different amount".
 */
export function foldProviderEvent(order: OrderFacts, report: ProviderReport, rules: ShopRules): FoldResult {
  // A stale or late event never moves a final order, whatever it says.
  if (isFinal(order.status)) return { kind: 'noop', reason: 'order_final' };
  // Two attempts may both have taken the money (decision 322): only an operator settles it.
  if (order.status === 'need_action' && order.needActionReason === 'duplicate_payment')
    return { kind: 'noop', reason: 'awaiting_operator' };
  const waitsForMismatch =
    order.status === 'need_action' &&
    (order.needActionReason === 'amount_mismatch' || order.needActionReason === 'currency_mismatch');
  // "A currency change is never accepted automatically" (spec section 3): automatic finalization
  // covers the amount mismatch only, so an order waiting for a currency decision stays with the
  // operator whatever the provider reports next.
  const operatorOnly =
    waitsForMismatch && (order.needActionReason === 'currency_mismatch' || !rules.autoFinalizeNeedAction);

  switch (report.status) {
    case 'pending':
      if (order.status === 'registered')
        return {
          kind: 'transition',
          status: 'in_progress',
          statusCode: '1-01-02',
          needActionReason: null,
          needAction: null,
        };
      // The provider answered after timing out: it is alive and working on the payment.
      if (order.status === 'need_action' && order.needActionReason === 'provider_timeout') {
        return {
          kind: 'transition',
          status: 'in_progress',
          statusCode: '1-01-02',
          needActionReason: null,
          needAction: null,
        };
      }
      return { kind: 'noop', reason: waitsForMismatch ? 'awaiting_operator' : 'no_change' };

    case 'failed':
      if (operatorOnly) return { kind: 'noop', reason: 'awaiting_operator' };
      return { kind: 'transition', status: 'failed', statusCode: '2-07-01', needActionReason: null, needAction: null };

    case 'success': {
      const match = compare(order, report, rules);
      if (order.needActionReason === 'currency_mismatch' && waitsForMismatch) {
        return match.kind === 'currency_mismatch'
          ? { kind: 'noop', reason: 'still_mismatched' }
          : { kind: 'noop', reason: 'awaiting_operator' };
      }
      if (match.kind === 'amount_mismatch' || match.kind === 'currency_mismatch')
        return needAction(order, match.kind, report, rules);
      // The follow-up with the right amount: resolved only where the shop allows it.
      if (operatorOnly) return { kind: 'noop', reason: 'awaiting_operator' };
      if (match.kind === 'within_range') {
        return {
          kind: 'transition',
          status: 'completed',
          statusCode: '0-07-01',
          needActionReason: null,
          needAction: null,
          acceptedAmount: match.amount,
          reportedAmount: match.amount,
        };
      }
      return {
        kind: 'transition',
        status: 'completed',
        statusCode: '0-01-00',
        needActionReason: null,
        needAction: null,
      };
    }
    default:
      return assertNever(report.status);
  }
}

/**
 * Folds one provider event about one attempt of an order (decision 322). An attempt a failover
 * replaced (`superseded`: the order has a newer attempt) never moves the order by `pending` or
 * `failed`: the newer attempt is the one the order waits for. Its `success` means the payer may
 * have paid twice: an order that still waits (or waits in need_action) goes to need_action
 * `duplicate_payment` (2-07-07) for an operator; a final order stays final (decision 9's "a late
 * event never moves a final order"), and the caller records the attempt as the duplicate it is.
 */
export function foldAttemptEvent(
  order: OrderFacts,
  report: ProviderReport,
  rules: ShopRules,
  attempt: { superseded: boolean },
): FoldResult {
  if (!attempt.superseded) return foldProviderEvent(order, report, rules);
  if (isFinal(order.status)) return { kind: 'noop', reason: 'order_final' };
  if (report.status !== 'success') return { kind: 'noop', reason: 'superseded_attempt' };
  if (order.status === 'need_action' && order.needActionReason === 'duplicate_payment')
    return { kind: 'noop', reason: 'awaiting_operator' };
  return {
    kind: 'transition',
    status: 'need_action',
    statusCode: '2-07-07',
    needActionReason: 'duplicate_payment',
    needAction: explainDuplicate(order, report, rules),
    reportedAmount: report.amount,
  };
}
