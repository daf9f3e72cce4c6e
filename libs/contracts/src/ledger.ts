import { z } from 'zod';
import { costDto } from './orders';
import { operatorMember } from './operator-identity';
import { decimal, optional, uuid } from './schema';

/** Requests on `ledger.commands` (request-reply: the payouts service, the gateway). */
export const LedgerCommandTypes = {
  reservePayout: 'ledger.reserve_payout',
  releasePayout: 'ledger.release_payout',
  reserveRefund: 'ledger.reserve_refund',
  releaseRefund: 'ledger.release_refund',
  getBalance: 'ledger.get_balance',
  listTransactions: 'ledger.list_transactions',
} as const;

export const reservePayoutCommand = z
  .object({
    payoutId: uuid(),
    shopId: uuid(),
    provider: z.string().min(1).max(64),
    method: z.string().min(1).max(64),
    cost: costDto,
    attemptId: optional(
      uuid().describe(
        "The id of the payouts service's command this ask serves (its envelope's eventId): asked again under it, a refusal is answered again (decision 354)",
      ),
    ),
  })
  .describe("Reserves a payout's amount plus its fee from the shop's available balance (the first phase of its hold)");
export type ReservePayoutCommand = z.infer<typeof reservePayoutCommand>;

export const releasePayoutCommand = z
  .object({ payoutId: uuid(), shopId: uuid() })
  .describe('Voids the hold of a payout that was never created (its creation lost a race)');
export type ReleasePayoutCommand = z.infer<typeof releasePayoutCommand>;

export const reserveRefundCommand = z
  .object({
    refundId: uuid(),
    orderId: uuid(),
    shopId: uuid(),
    amount: decimal().describe('The refunded amount, in the order currency'),
    attemptId: optional(
      uuid().describe(
        "The id of the orders service's command this ask serves (its envelope's eventId): asked again under it, a refusal is answered again (decision 354)",
      ),
    ),
  })
  .describe("Reserves a refund's debit from the shop's balance at the original credit's rate (decision 276)");
export type ReserveRefundCommand = z.infer<typeof reserveRefundCommand>;

export const releaseRefundCommand = z
  .object({ refundId: uuid(), shopId: uuid() })
  .describe('Voids the hold of a refund that was never created (the orders service refused it after all)');
export type ReleaseRefundCommand = z.infer<typeof releaseRefundCommand>;

export const refundReservation = z
  .object({
    refundId: z.string(),
    orderId: z.string(),
    currency: z.string().describe('The balance currency the debit is held in, with its token standard'),
    amount: decimal().describe('The debit, in `currency`'),
    status: z.enum(['held', 'posted', 'voided']),
  })
  .describe("A refund's hold on the shop's balance");
export type RefundReservation = z.infer<typeof refundReservation>;

export const refundRelease = z
  .object({ refundId: z.string(), released: z.boolean().describe('false: there was no open hold to void') })
  .describe("The answer to a refund hold's release");
export type RefundRelease = z.infer<typeof refundRelease>;

export const payoutReservation = z
  .object({
    payoutId: z.string(),
    currency: z.string().describe('The balance currency, with its token standard: USDT-TRC20'),
    amount: decimal(),
    fee: decimal(),
    status: z.enum(['held', 'posted', 'voided']),
    note: optional(z.string()),
  })
  .describe("A payout's hold on the shop's balance");
export type PayoutReservation = z.infer<typeof payoutReservation>;

export const payoutRelease = z
  .object({ payoutId: z.string(), released: z.boolean().describe('false: there was no open hold to void') })
  .describe("The answer to a hold's release");
export type PayoutRelease = z.infer<typeof payoutRelease>;

export const getBalanceQuery = z.object({ shopId: uuid() }).describe("Reads a shop's balances, one per currency");
export type GetBalanceQuery = z.infer<typeof getBalanceQuery>;

export const balanceView = z
  .object({
    shopId: z.string(),
    balances: z.array(
      z.object({
        currency: z.string().describe('With its token standard: USD, BTC, USDT-TRC20'),
        available: decimal().describe('What the shop can pay out now'),
        pending: decimal().describe('Credited, not yet settled (see availableOn of each transaction)'),
        reserved: decimal().describe('Held for payouts on their way out (amount + fee)'),
        owed: decimal().describe(
          'What the shop owes the service in this currency (a P2P fee or a refund its available balance could not cover; decisions 345, 348): paid first from the next settlements of the shop, before they reach available',
        ),
      }),
    ),
  })
  .describe("A shop's balances, one per currency it has books in");
export type BalanceView = z.infer<typeof balanceView>;

export const listBalanceTransactionsQuery = z
  .object({
    shopId: uuid(),
    limit: z.number().int().min(1).max(100),
    /** The nextCursor of the previous page. */
    cursor: optional(z.string().regex(/^[A-Za-z0-9_-]{1,200}$/)),
  })
  .describe("Lists a shop's ledger transactions, newest first");
export type ListBalanceTransactionsQuery = z.infer<typeof listBalanceTransactionsQuery>;

export const balanceTransactionView = z.object({
  id: z.string(),
  kind: z.enum([
    'order_completed',
    'order_refunded',
    'settlement',
    'payout_reserved',
    'payout_posted',
    'payout_voided',
    'refund_reserved',
    'refund_voided',
    'suspense_converted',
    'manual_adjustment',
    'p2p_fee',
  ]),
  status: z.enum(['posted', 'awaiting_rate']),
  source: z
    .object({ type: z.enum(['order', 'payout', 'adjustment', 'p2p', 'settlement']), id: z.string() })
    .describe(
      "The object it books (an operator's manual adjustment: `adjustment`; a P2P fee: `p2p`; a settlement of several credits: `settlement`, its own id)",
    ),
  gross: decimal(),
  fee: decimal(),
  net: decimal(),
  operationCurrency: z.string().describe('The currency of gross, fee and net'),
  amount: z.string().describe("What the shop's balance moved by, signed, in `currency`"),
  currency: z.string(),
  repaid: optional(
    decimal().describe(
      'A settlement that paid what the shop owed (decision 348): the part of `amount` that went to `owed` instead of available, in `currency`; absent when nothing was owed',
    ),
  ),
  credits: optional(
    z
      .number()
      .int()
      .min(1)
      .describe(
        'A settlement (decision 351): how many of the shop’s credits in `currency` it moved from pending, each one due by its own `availableOn`',
      ),
  ),
  rate: optional(z.object({ rate: decimal(), source: z.string(), validFrom: z.string() })),
  createdAt: z.string(),
  availableOn: optional(z.string().describe('A credit: when it moves from pending to available')),
});
export type BalanceTransactionView = z.infer<typeof balanceTransactionView>;

export const balanceTransactionPage = z
  .object({ items: z.array(balanceTransactionView), nextCursor: z.string().nullable() })
  .describe("A page of a shop's ledger transactions, newest first");
export type BalanceTransactionPage = z.infer<typeof balanceTransactionPage>;

/**
 * Operators' settings of the books (issue 29 items 3 and 4, decision 303): sent by the backoffice
 * on the operator path `ledger.ops-commands` (decision 263), each with its `operator` (decision 301).
 */
export const LedgerOpsCommandTypes = {
  setFee: 'ledger.set_fee',
  listFees: 'ledger.list_fees',
  deleteFee: 'ledger.delete_fee',
  setSettlement: 'ledger.set_settlement',
  getSettlement: 'ledger.get_settlement',
  setRate: 'ledger.set_rate',
  listRates: 'ledger.list_rates',
  // Operators' balances, statements and manual adjustments (decisions 308, 309): ledger-adjustments.ts.
  getShopBalance: 'ledger.get_shop_balance',
  listShopTransactions: 'ledger.list_shop_transactions',
  adjustBalance: 'ledger.adjust_balance',
  // Credits waiting for a rate and the release of a parked one (decision 344): ledger-awaiting.ts.
  listAwaitingCredits: 'ledger.list_awaiting_credits',
  releaseCredit: 'ledger.release_credit',
} as const;

/** A method code of a fee line: the order's or payout's method, or `*` for every method of the shop. */
const feeMethod = () => z.string().regex(/^(\*|[a-z0-9][a-z0-9_-]{0,63})$/, { error: 'must be a method code or *' });
/** A books currency: its registry code, with the token standard of a token (`USD`, `USDT-TRC20`). */
const bookCurrencyCode = () =>
  z.string().regex(/^[A-Z0-9]{2,16}(-[A-Z0-9]{2,16})?$/, { error: 'must be a currency code (USD, USDT-TRC20)' });

export const feeScheduleView = z
  .object({
    shopId: z.string(),
    method: z.string().describe('The method code, or `*` for the methods without a line of their own'),
    currency: z.string().describe("The operation's currency, with its token standard"),
    percent: decimal().describe('Percent of the amount, 0–100'),
    fixed: decimal().describe('Added to the percentage, in `currency`'),
    minimum: decimal().describe('The least fee, in `currency`'),
    updatedAt: z.string(),
  })
  .describe("A shop's fee for one method and currency");
export type FeeScheduleView = z.infer<typeof feeScheduleView>;

export const setFeeCommand = z
  .object({
    shopId: uuid(),
    method: feeMethod(),
    currency: bookCurrencyCode(),
    percent: decimal(),
    fixed: decimal(),
    minimum: decimal(),
    ...operatorMember(),
  })
  .describe("Sets (creates or replaces) a shop's fee for a method and currency");
export type SetFeeCommand = z.infer<typeof setFeeCommand>;

export const listFeesQuery = z.object({ shopId: uuid(), ...operatorMember() }).describe("Lists a shop's fee lines");
export type ListFeesQuery = z.infer<typeof listFeesQuery>;

export const feeListView = z
  .object({ shopId: z.string(), fees: z.array(feeScheduleView) })
  .describe("A shop's fee lines; an operation with none is charged no fee");
export type FeeListView = z.infer<typeof feeListView>;

export const deleteFeeCommand = z
  .object({ shopId: uuid(), method: feeMethod(), currency: bookCurrencyCode(), ...operatorMember() })
  .describe("Deletes a shop's fee line for a method and currency");
export type DeleteFeeCommand = z.infer<typeof deleteFeeCommand>;

export const deletedFee = z
  .object({ deleted: z.boolean().describe('false: there was no such line') })
  .describe("The answer to a fee line's deletion");
export type DeletedFee = z.infer<typeof deletedFee>;

export const settlementView = z
  .object({
    shopId: z.string(),
    settlementDelaySeconds: z.number().int().min(0).describe('How long a credit stays pending'),
    default: z.boolean().describe('true: never set, the default of one day applies'),
  })
  .describe("A shop's settlement delay");
export type SettlementView = z.infer<typeof settlementView>;

export const setSettlementCommand = z
  .object({
    shopId: uuid(),
    settlementDelaySeconds: z.number().int().min(0).max(31_536_000),
    ...operatorMember(),
  })
  .describe("Sets a shop's settlement delay (applies to credits booked from now on)");
export type SetSettlementCommand = z.infer<typeof setSettlementCommand>;

export const getSettlementQuery = z
  .object({ shopId: uuid(), ...operatorMember() })
  .describe("Reads a shop's settlement delay");
export type GetSettlementQuery = z.infer<typeof getSettlementQuery>;

export const rateView = z
  .object({
    id: z.string(),
    base: z.string(),
    quote: z.string(),
    rate: decimal().describe('1 base = rate quote'),
    source: z.string().describe('`operator:<operator id>` for one an operator set'),
    validFrom: z.string(),
    validTo: z.string().nullable(),
    createdAt: z.string(),
  })
  .describe('A rate of a currency pair with its validity');
export type RateView = z.infer<typeof rateView>;

export const setRateCommand = z
  .object({
    base: bookCurrencyCode(),
    quote: bookCurrencyCode(),
    rate: decimal(),
    validFrom: z.iso.datetime({ offset: true }),
    validTo: optional(z.iso.datetime({ offset: true })),
    ...operatorMember(),
  })
  .describe('Adds a rate of a pair with its validity (the latest started one in force wins)');
export type SetRateCommand = z.infer<typeof setRateCommand>;

export const listRatesQuery = z
  .object({ base: optional(bookCurrencyCode()), quote: optional(bookCurrencyCode()), ...operatorMember() })
  .describe('Lists rates, newest validity first (at most 100)');
export type ListRatesQuery = z.infer<typeof listRatesQuery>;

export const rateListView = z.object({ rates: z.array(rateView) }).describe('Rates, newest validity first');
export type RateListView = z.infer<typeof rateListView>;
