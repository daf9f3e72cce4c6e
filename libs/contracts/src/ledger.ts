import { z } from 'zod';
import { costDto } from './orders';
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
  ]),
  status: z.enum(['posted', 'awaiting_rate']),
  source: z.object({ type: z.enum(['order', 'payout']), id: z.string() }).describe('The object it books'),
  gross: decimal(),
  fee: decimal(),
  net: decimal(),
  operationCurrency: z.string().describe('The currency of gross, fee and net'),
  amount: z.string().describe("What the shop's balance moved by, signed, in `currency`"),
  currency: z.string(),
  rate: optional(z.object({ rate: decimal(), source: z.string(), validFrom: z.string() })),
  createdAt: z.string(),
  availableOn: optional(z.string().describe('A credit: when it moves from pending to available')),
});
export type BalanceTransactionView = z.infer<typeof balanceTransactionView>;

export const balanceTransactionPage = z
  .object({ items: z.array(balanceTransactionView), nextCursor: z.string().nullable() })
  .describe("A page of a shop's ledger transactions, newest first");
export type BalanceTransactionPage = z.infer<typeof balanceTransactionPage>;
