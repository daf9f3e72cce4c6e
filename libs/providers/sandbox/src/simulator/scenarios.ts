import { amountOf, MoneyDecimal } from '@payments/money';

export type ScenarioName =
  | 'success'
  | 'decline'
  | 'amount_mismatch'
  | 'currency_mismatch'
  | 'slow'
  | 'duplicate_callbacks'
  | 'stale_pending'
  | 'no_callback';

export interface PaymentTerms {
  amount: string;
  currency: string;
  tokenStandard?: string;
}

/** One callback the sandbox will send for a payment, in order, `SANDBOX_CALLBACK_DELAY_MS` apart. */
export interface PlannedCallback extends PaymentTerms {
  status: 'success' | 'failed' | 'pending';
  reason?: string;
  /** Deliver the callback at this index again, with the same eventId: a provider's delivery retry. */
  repeatOf?: number;
}

export interface Scenario {
  name: ScenarioName;
  /** The first two digits after the decimal point that choose it; null for the default. */
  cents: string | null;
  description: string;
  /** Answer the payment request only after `SANDBOX_SLOW_MS`. */
  slow: boolean;
  callbacks(terms: PaymentTerms): PlannedCallback[];
}

const same = (t: PaymentTerms): PaymentTerms => ({
  amount: t.amount,
  currency: t.currency,
  ...(t.tokenStandard ? { tokenStandard: t.tokenStandard } : {}),
});

function decimalsOf(amount: string): number {
  return amount.split('.')[1]?.length ?? 0;
}

/** 10 % less, cut to the request's own number of decimals. */
function tenPercentLess(amount: string): string {
  const dp = decimalsOf(amount);
  return amountOf(amount).times('0.9').toDecimalPlaces(dp, MoneyDecimal.ROUND_DOWN).toFixed(dp);
}

/**
 * The sandbox's test cases, chosen by the cents of the amount as card test numbers choose a
 * card's behaviour (documented in apps/provider-sandbox/README.md).
 */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'success',
    cents: null,
    slow: false,
    description: 'accepted; one `success` callback with the same amount and currency',
    callbacks: (t) => [{ status: 'success', ...same(t) }],
  },
  {
    name: 'decline',
    cents: '13',
    slow: false,
    description: 'accepted; one `failed` callback (declined by the issuer)',
    callbacks: (t) => [{ status: 'failed', ...same(t), reason: 'declined by the issuer' }],
  },
  {
    name: 'amount_mismatch',
    cents: '21',
    slow: false,
    description: 'accepted; one `success` callback for 10 % less (cut to the same decimals)',
    callbacks: (t) => [{ status: 'success', ...same(t), amount: tenPercentLess(t.amount) }],
  },
  {
    name: 'currency_mismatch',
    cents: '22',
    slow: false,
    description: 'accepted; one `success` callback with the same amount in another currency (EUR, or USD for EUR)',
    callbacks: (t) => [{ status: 'success', amount: t.amount, currency: t.currency === 'EUR' ? 'USD' : 'EUR' }],
  },
  {
    name: 'slow',
    cents: '31',
    slow: true,
    description: 'answers the request only after `SANDBOX_SLOW_MS`, then one `success` callback',
    callbacks: (t) => [{ status: 'success', ...same(t) }],
  },
  {
    name: 'duplicate_callbacks',
    cents: '41',
    slow: false,
    description:
      'accepted; the `success` callback sent 3 times: twice with the same eventId (a delivery retry), then once more with a new eventId',
    callbacks: (t) => [
      { status: 'success', ...same(t) },
      { status: 'success', ...same(t), repeatOf: 0 },
      { status: 'success', ...same(t) },
    ],
  },
  {
    name: 'stale_pending',
    cents: '42',
    slow: false,
    description: 'accepted; a `success` callback, then a stale `pending` one',
    callbacks: (t) => [
      { status: 'success', ...same(t) },
      { status: 'pending', ...same(t) },
    ],
  },
  {
    name: 'no_callback',
    cents: '99',
    slow: false,
    description: 'accepted; never calls back',
    callbacks: () => [],
  },
];

/** The scenario of an amount: by the first two digits after its decimal point (missing digits are 0). */
export function scenarioOf(amount: string): Scenario {
  const cents = `${amount.split('.')[1] ?? ''}00`.slice(0, 2);
  return SCENARIOS.find((s) => s.cents === cents) ?? SCENARIOS[0];
}
