import { Amount } from '@payments/money';
import { shopAccount } from './accounts';
import { computeFee, FeeSchedule } from './fees';
import { LedgerCurrency, roundDown } from './ledger-currency';
import { compact, Posting } from './postings';

/** A rate in force: one unit of the order currency is `rate` units of the balance currency. */
export interface RateInForce {
  rate: Amount;
  source: string;
  validFrom: Date;
}

export interface CompletionInput {
  shopId: string;
  provider: string;
  /** The accepted amount, in the order currency. */
  gross: Amount;
  orderCurrency: LedgerCurrency;
  balanceCurrency: LedgerCurrency;
  fee: FeeSchedule;
  /** The rate from the order to the balance currency; unused when they are the same. */
  rate: RateInForce | null;
}

export type CompletionPlan =
  | {
      kind: 'credit';
      postings: Posting[];
      fee: Amount;
      net: Amount;
      /** The net in the balance currency: what the shop's pending gets. */
      credited: Amount;
      rate: RateInForce | null;
    }
  | { kind: 'awaiting_rate'; postings: Posting[]; fee: Amount; net: Amount }
  | { kind: 'rejected'; field: string; reason: string };

/**
 * An order completed: the provider owes us the gross (clearing debited), the fee is ours, the net
 * is the shop's, pending until settlement. Across currencies the net goes through the FX account
 * at the rate in force; with no rate the net waits in the shop's suspense account in the order
 * currency — never converted at a guessed rate.
 */
export function planCompletion(input: CompletionInput): CompletionPlan {
  const { shopId, provider, gross, orderCurrency: from, balanceCurrency: to } = input;
  const fee = computeFee(gross, input.fee, from);
  if (fee.kind === 'rejected') return fee;
  const base: Posting[] = [
    { account: { owner: 'clearing', provider, currency: from.code }, amount: gross.negated() },
    { account: { owner: 'fee_revenue', currency: from.code }, amount: fee.fee },
  ];
  if (from.code === to.code) {
    const postings = compact([...base, { account: shopAccount(shopId, 'pending', to.code), amount: fee.net }]);
    return { kind: 'credit', postings, fee: fee.fee, net: fee.net, credited: fee.net, rate: null };
  }
  if (!input.rate) {
    const postings = compact([...base, { account: shopAccount(shopId, 'suspense', from.code), amount: fee.net }]);
    return { kind: 'awaiting_rate', postings, fee: fee.fee, net: fee.net };
  }
  const credited = roundDown(fee.net.times(input.rate.rate), to);
  const postings = compact([
    ...base,
    { account: { owner: 'fx', currency: from.code }, amount: fee.net },
    { account: { owner: 'fx', currency: to.code }, amount: credited.negated() },
    { account: shopAccount(shopId, 'pending', to.code), amount: credited },
  ]);
  return { kind: 'credit', postings, fee: fee.fee, net: fee.net, credited, rate: input.rate };
}
