import { z } from 'zod';
import { balanceTransactionView } from './ledger';
import { operatorMember } from './operator-identity';
import { decimal, optional, uuid } from './schema';

/**
 * What operators read of a shop's books and how they correct them (issue 29 item 6, decisions 308
 * and 309), on the operator path `ledger.ops-commands` with the operator on each (decision 301).
 */

/** A signed decimal string: `"25.00"`, `"-10.5"`; never a number or an exponent. */
export const SIGNED_DECIMAL_PATTERN = /^[+-]?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const getShopBalanceQuery = z
  .object({ shopId: uuid(), ...operatorMember() })
  .describe("Reads a shop's balances for an operator, one per currency");
export type GetShopBalanceQuery = z.infer<typeof getShopBalanceQuery>;

export const listShopTransactionsQuery = z
  .object({
    shopId: uuid(),
    limit: z.number().int().min(1).max(100),
    cursor: optional(z.string().regex(/^[A-Za-z0-9_-]{1,200}$/)),
    ...operatorMember(),
  })
  .describe("Lists a shop's ledger transactions for an operator, newest first");
export type ListShopTransactionsQuery = z.infer<typeof listShopTransactionsQuery>;

const adjustmentNote = z
  .object({
    reason: z.string().describe('Why the operator posted it'),
    operator: z.object({ id: z.string(), name: z.string() }).describe('Who posted it'),
  })
  .describe('A manual adjustment: who posted it and why (operators only; the merchant sees the transaction alone)');

export const shopTransactionView = balanceTransactionView.extend({ adjustment: optional(adjustmentNote) });
export type ShopTransactionView = z.infer<typeof shopTransactionView>;

export const shopTransactionPage = z
  .object({ items: z.array(shopTransactionView), nextCursor: z.string().nullable() })
  .describe("A page of a shop's ledger transactions, newest first, as operators see them");
export type ShopTransactionPage = z.infer<typeof shopTransactionPage>;

export const adjustBalanceCommand = z
  .object({
    shopId: uuid(),
    idempotencyKey: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/)
      .describe("The request's Idempotency-Key (or one the backoffice made): a second command with it posts nothing"),
    currency: z.string().min(1).max(40).describe('A books currency: USD, USDT-TRC20'),
    amount: z
      .string()
      .regex(SIGNED_DECIMAL_PATTERN, { error: 'must be a signed decimal string' })
      .describe("Signed: positive credits the shop's available balance, negative debits it"),
    reason: z.string().min(1).max(500),
    ...operatorMember(),
  })
  .describe("Posts an operator's manual adjustment to a shop's available balance (decision 308)");
export type AdjustBalanceCommand = z.infer<typeof adjustBalanceCommand>;

export const adjustmentView = z
  .object({
    id: z.string(),
    shopId: z.string(),
    currency: z.string(),
    amount: z.string().describe('Signed, as posted'),
    reason: z.string(),
    operator: z.object({ id: z.string(), name: z.string() }),
    transactionId: z.string().describe('The `manual_adjustment` ledger transaction'),
    availableAfter: decimal().describe("The shop's available balance in `currency` right after it was posted"),
    createdAt: z.string(),
    replayed: z.boolean().describe('true: the key was used before; this is the first answer, nothing posted again'),
  })
  .describe("An operator's manual adjustment, as posted");
export type AdjustmentView = z.infer<typeof adjustmentView>;
