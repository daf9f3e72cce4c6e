import { amountOf } from '@payments/money';
import { assertNever } from '@payments/exhaustive';

/** An amount in a currency, as the order or the provider gave it. */
export interface MoneyFacts {
  amount: string;
  currency: string;
  tokenStandard?: string | null;
}

/** The shop's allowed range when the rule fired, and the amounts it allowed for this order. */
export interface AllowedRange {
  lowerPercent: string;
  upperPercent: string;
  lowerBound: string;
  upperBound: string;
}

/** What takes an order out of need_action, given the rule and the shop's auto-finalization. */
export interface NeedActionResolution {
  autoFinalization: boolean;
  resolvedBy: 'operator' | 'follow_up_callback_or_operator' | 'provider_response';
  description: string;
}

interface Common {
  expected: MoneyFacts;
  allowedRange: AllowedRange;
  resolution: NeedActionResolution;
}

/**
 * Why an order waits in need_action (issue 17 item 2): the rule that fired, what was expected and
 * reported, the range in force at that moment and what resolves it. Kept with the order as it was
 * decided, so a later change of the shop's settings does not rewrite the explanation.
 */
export type NeedAction =
  | (Common & { rule: 'amount_outside_range'; reported: MoneyFacts })
  | (Common & { rule: 'currency_differs'; reported: MoneyFacts })
  | (Common & { rule: 'provider_timeout' })
  | (Common & { rule: 'duplicate_payment'; reported: MoneyFacts });

export type NeedActionRule = NeedAction['rule'];

/** The rules the explanation is built from: a pure copy of the fold's ShopRules. */
export interface ExplainRules {
  amountDeviation: { lowerPercent: string; upperPercent: string };
  autoFinalizeNeedAction: boolean;
}

export function allowedRange(expectedAmount: string, rules: ExplainRules): AllowedRange {
  const expected = amountOf(expectedAmount);
  const { lowerPercent, upperPercent } = rules.amountDeviation;
  return {
    lowerPercent,
    upperPercent,
    lowerBound: expected.minus(expected.times(amountOf(lowerPercent)).dividedBy(100)).toFixed(),
    upperBound: expected.plus(expected.times(amountOf(upperPercent)).dividedBy(100)).toFixed(),
  };
}

function resolution(rule: NeedActionRule, autoFinalization: boolean): NeedActionResolution {
  switch (rule) {
    case 'amount_outside_range':
      return autoFinalization
        ? {
            autoFinalization,
            resolvedBy: 'follow_up_callback_or_operator',
            description:
              'Auto-finalization is on for this shop: a provider callback with the expected amount completes the order; an operator may also accept the reported amount or fail it.',
          }
        : {
            autoFinalization,
            resolvedBy: 'operator',
            description:
              'Auto-finalization is off for this shop: an operator accepts the reported amount or fails the order.',
          };
    case 'currency_differs':
      return {
        autoFinalization,
        resolvedBy: 'operator',
        description:
          'A currency change is never accepted automatically, whatever the shop setting: an operator fails the order.',
      };
    case 'provider_timeout':
      return {
        autoFinalization,
        resolvedBy: 'provider_response',
        description:
          'The provider did not answer in time and may have the payment: its late answer resolves the order; an operator may fail it.',
      };
    case 'duplicate_payment':
      return {
        autoFinalization,
        resolvedBy: 'operator',
        description:
          'An attempt replaced by a failover to another provider reported a payment while the newer attempt is still open: the payer may be charged twice. An operator checks both providers, refunds one payment and settles the order; no provider callback moves it meanwhile.',
      };
    default:
      return assertNever(rule);
  }
}

const money = (m: MoneyFacts): MoneyFacts => ({
  amount: m.amount,
  currency: m.currency,
  ...(m.tokenStandard ? { tokenStandard: m.tokenStandard } : {}),
});

/** The explanation of a mismatch the provider reported (amount outside the range, or another currency). */
export function explainMismatch(
  rule: 'amount_outside_range' | 'currency_differs',
  order: MoneyFacts,
  reported: MoneyFacts,
  rules: ExplainRules,
): NeedAction {
  return {
    rule,
    expected: money(order),
    reported: money(reported),
    allowedRange: allowedRange(order.amount, rules),
    resolution: resolution(rule, rules.autoFinalizeNeedAction),
  };
}

/** The explanation of an attempt the provider did not answer within our timeout. */
export function explainTimeout(order: MoneyFacts, rules: ExplainRules): NeedAction {
  return {
    rule: 'provider_timeout',
    expected: money(order),
    allowedRange: allowedRange(order.amount, rules),
    resolution: resolution('provider_timeout', rules.autoFinalizeNeedAction),
  };
}

/** The explanation of a payment reported by an attempt a failover replaced (decision 322). */
export function explainDuplicate(order: MoneyFacts, reported: MoneyFacts, rules: ExplainRules): NeedAction {
  return {
    rule: 'duplicate_payment',
    expected: money(order),
    reported: money(reported),
    allowedRange: allowedRange(order.amount, rules),
    resolution: resolution('duplicate_payment', rules.autoFinalizeNeedAction),
  };
}
