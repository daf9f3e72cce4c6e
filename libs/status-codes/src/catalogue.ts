/**
 * The status code catalogue (ARCHITECTURE.md section 5). Format `S-CC-NN`:
 *   S  source   — 0 success, 1 this system, 2 the provider
 *   CC scenario — 01 general, 02 validation, 03 payment method, 04 3-D Secure, 05 antifraud,
 *                 06 limits, 07 payment processing, 08 participant actions
 *   NN reason
 * Every response and callback that carries a code takes its description from here, so a code
 * that is not in this table cannot be produced (see `statusOf`).
 */
export interface StatusCodeEntry {
  readonly code: string;
  readonly description: string;
  /** Whether the merchant may retry the operation (a new order or attempt) after this code. */
  readonly retryAllowed: boolean;
}

const entries = [
  { code: '0-01-00', description: 'Operation completed successfully.', retryAllowed: false },
  {
    code: '0-07-01',
    description:
      'Payment completed with an amount different from the order, within the range the shop allows; the amount was accepted.',
    retryAllowed: false,
  },
  { code: '0-07-02', description: 'Order refunded in part.', retryAllowed: false },
  { code: '0-07-03', description: 'Order refunded in full.', retryAllowed: false },
  { code: '1-01-01', description: 'Order registered; awaiting payment.', retryAllowed: false },
  { code: '1-01-02', description: 'Payment is being processed by the provider.', retryAllowed: false },
  { code: '1-01-99', description: 'Internal error of the payment service.', retryAllowed: true },
  {
    code: '1-07-01',
    description: 'Order failed: no final answer from the provider within the processing timeout.',
    retryAllowed: true,
  },
  {
    code: '1-07-02',
    description: 'The provider did not answer in time; the order resolves by itself when its answer arrives.',
    retryAllowed: false,
  },
  { code: '1-07-03', description: 'Order failed by an operator.', retryAllowed: true },
  { code: '1-07-04', description: 'Reported amount accepted by an operator.', retryAllowed: false },
  { code: '1-08-01', description: 'Order cancelled by the merchant.', retryAllowed: true },
  { code: '2-01-01', description: 'The provider is temporarily unavailable.', retryAllowed: true },
  { code: '2-07-01', description: 'Payment declined by the provider.', retryAllowed: true },
  { code: '2-07-02', description: 'Payment declined by the provider: insufficient funds.', retryAllowed: true },
  {
    code: '2-07-04',
    description:
      'The provider reported an amount outside the allowed range, or a different currency; action is needed.',
    retryAllowed: false,
  },
  // Decision 322: a late success of an attempt a failover replaced; the payer may have paid twice.
  {
    code: '2-07-07',
    description:
      'A provider reported a payment for an attempt that was replaced by a failover to another provider: the payer may be charged twice; an operator must check and refund one.',
    retryAllowed: false,
  },
  // Scenarios an acquirer integration reports beyond the order lifecycle (validation, payment
  // method, 3-D Secure, antifraud, limits, participant actions). retryAllowed says whether a new
  // attempt with the same data can succeed; false means the merchant or payer must change something.
  {
    code: '1-02-01',
    description: 'The request was refused by validation: a field is missing, malformed or not allowed.',
    retryAllowed: false,
  },
  { code: '2-02-01', description: 'The provider refused the payment data as invalid.', retryAllowed: false },
  { code: '1-03-01', description: 'The payment method is not available for this shop.', retryAllowed: false },
  {
    code: '1-03-02',
    description: 'No payout method of the shop fits this payout (amount and currency), or it is not offered.',
    retryAllowed: false,
  },
  {
    code: '2-03-01',
    description: 'The provider does not support this payment method or card brand.',
    retryAllowed: false,
  },
  { code: '2-03-02', description: 'The card or account is blocked, closed or expired.', retryAllowed: false },
  { code: '2-04-01', description: '3-D Secure authentication of the payer failed.', retryAllowed: true },
  {
    code: '2-04-02',
    description: '3-D Secure authentication was not completed by the payer in time.',
    retryAllowed: true,
  },
  { code: '2-04-03', description: '3-D Secure is not available for this card.', retryAllowed: false },
  { code: '1-05-01', description: 'Declined by the antifraud checks of the payment service.', retryAllowed: false },
  { code: '2-05-01', description: 'Declined by the antifraud checks of the provider.', retryAllowed: false },
  { code: '1-06-01', description: 'The amount is outside the limits set for the shop.', retryAllowed: false },
  // The ledger (issue 29, decision 273): a payout is refused at creation when the balance cannot cover it.
  {
    code: '1-06-02',
    description: "The shop's available balance does not cover the payout amount plus its fee.",
    retryAllowed: true,
  },
  // A refund is refused at POST /order/refund when the shop's balance cannot cover its debit (decision 276).
  {
    code: '1-06-03',
    description: "The shop's available balance does not cover the refund.",
    retryAllowed: true,
  },
  { code: '2-06-01', description: "The payer's card or account limit is exceeded.", retryAllowed: true },
  { code: '2-06-02', description: 'The amount is outside the limits of the provider.', retryAllowed: false },
  { code: '2-08-01', description: 'The payer cancelled the payment.', retryAllowed: true },
  // Payouts and P2P transactions (issue 4): money going out has its own wording.
  { code: '1-01-03', description: 'Payout registered; awaiting sending to the provider.', retryAllowed: false },
  { code: '1-01-04', description: 'Payout is being processed by the provider.', retryAllowed: false },
  {
    code: '1-01-05',
    description: 'P2P transaction registered; awaiting sending to the provider.',
    retryAllowed: false,
  },
  { code: '1-01-06', description: 'P2P transaction is being processed by the provider.', retryAllowed: false },
  {
    code: '1-07-05',
    description:
      "The provider did not answer in time; the payout or P2P transaction resolves by itself when the provider's answer arrives.",
    retryAllowed: false,
  },
  { code: '2-07-05', description: 'Payout declined by the provider.', retryAllowed: true },
  { code: '2-07-06', description: 'P2P transaction declined by the provider.', retryAllowed: true },
  {
    code: '1-07-06',
    description: 'Payout or P2P transaction completed by an operator after checking with the provider.',
    retryAllowed: false,
  },
  {
    code: '1-07-07',
    description: 'Payout or P2P transaction failed by an operator after checking with the provider.',
    retryAllowed: true,
  },
  // Hosted pages (issue 20): the payer did not pay the link before it expired; a new order may be paid.
  {
    code: '1-07-09',
    description: 'Payout link expired: the recipient did not give the payout details in time.',
    retryAllowed: true,
  },
  {
    code: '1-07-08',
    description: 'Payment time limit expired: the payment link was not paid in time.',
    retryAllowed: true,
  },
] as const satisfies readonly StatusCodeEntry[];

export type StatusCode = (typeof entries)[number]['code'];

const byCode: ReadonlyMap<string, StatusCodeEntry> = new Map(entries.map((e) => [e.code, e]));

export const STATUS_CODE_FORMAT = /^[012]-0[1-8]-[0-9]{2}$/;

/** The whole catalogue ordered by code, so that clients and diffs see a stable order. */
export function statusCatalogue(): readonly StatusCodeEntry[] {
  return [...entries].sort((a, b) => a.code.localeCompare(b.code));
}

export function isKnownStatusCode(code: string): code is StatusCode {
  return byCode.has(code);
}

/** The code with its description, for responses and callbacks. */
export function statusOf(code: StatusCode): { statusCode: StatusCode; statusDescription: string } {
  const entry = byCode.get(code);
  // Unreachable for a typed StatusCode; guards codes read back from storage.
  if (!entry) throw new Error(`status code ${code} is not in the catalogue`);
  return { statusCode: code, statusDescription: entry.description };
}

/** Whether the catalogue allows another try after this code: a failover to another provider asks it (decision 322). */
export function retryAllowed(code: StatusCode): boolean {
  return byCode.get(code)?.retryAllowed ?? false;
}
