import { z } from 'zod';
import { decimal, optional, uuid } from './schema';
import { operatorMember } from './operator-identity';

/**
 * `methods.queries`: the gateway (and the payouts service) ask the methods service which payment
 * and payout methods a shop has, and which payee fields a payout needs. Operators' changes travel
 * on the same topic as commands, so one consumer owns the tables.
 */
export const MethodQueryTypes = {
  paymentList: 'method.payment.list',
  payoutList: 'method.payout.list',
  payoutFields: 'method.payout.fields',
  payoutResolve: 'method.payout.resolve',
  create: 'method.create',
  update: 'method.update',
  delete: 'method.delete',
} as const;

export const MethodInstrumentTypes = ['card', 'wallet', 'bank_transfer', 'mobile_top_up', 'crypto'] as const;
export type MethodInstrumentType = (typeof MethodInstrumentTypes)[number];

/** Spec 2.5 adds `humo` and `uzcard` (Uzbekistan's domestic schemes) to the brands. */
export const CardBrands = ['visa', 'mastercard', 'mir', 'humo', 'uzcard', 'unionpay', 'maestro', 'amex'] as const;
export type CardBrand = (typeof CardBrands)[number];

/**
 * How the payer gives the payment data (ARCHITECTURE.md section 8): a card form on our page, an
 * app, wallet or transfer completed elsewhere from instructions (deeplink, QR), or the provider's page.
 */
export const DataEntryModes = ['card_form', 'instruction', 'redirect'] as const;
export type DataEntryMode = (typeof DataEntryModes)[number];

/** A card method takes a card form unless told otherwise; any other, instructions. */
export function defaultDataEntryMode(instrumentType: MethodInstrumentType): DataEntryMode {
  return instrumentType === 'card' ? 'card_form' : 'instruction';
}

export const WalletTypes = ['personal', 'company'] as const;
export type WalletType = (typeof WalletTypes)[number];

export const MethodDirections = ['payment', 'payout'] as const;
export type MethodDirection = (typeof MethodDirections)[number];

const walletType = z.enum(WalletTypes);
const direction = z.enum(MethodDirections);
const instrumentType = z.enum(MethodInstrumentTypes);
const code = z.string().min(1).max(64);
const provider = z.string().min(1).max(64);

/** One currency a method offers, with optional limits per operation (decimal strings). */
export const methodCurrency = z.object({
  currency: z.string().min(1).max(32),
  tokenStandard: optional(z.string().max(16)),
  minAmount: optional(decimal()),
  maxAmount: optional(decimal()),
});
export type MethodCurrency = z.infer<typeof methodCurrency>;

export const methodView = z
  .object({
    id: z.string(),
    code: z.string(),
    instrumentType,
    cardBrands: z.array(z.enum(CardBrands)).optional().describe('Only on card methods'),
    walletTypes: z.array(walletType).optional().describe('Present only when at least one is configured (spec 2.5)'),
    dataEntryMode: z
      .enum(DataEntryModes)
      .describe('How the payer gives the payment data (card form, instructions, redirect)'),
    currencies: z.array(methodCurrency),
    provider: z.string(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('A payment or payout method as merchants see it');
export type MethodView = z.infer<typeof methodView>;
export type PaymentMethodView = MethodView;
export type PayoutMethodView = MethodView;

export const methodListView = z.object({ shopId: z.string(), methods: z.array(methodView) });
export type MethodListView = z.infer<typeof methodListView>;

/** One payee field a payout needs: where it goes in the payout body and what it must look like. */
export const payoutFieldSpec = z.object({
  path: z.string().describe('JSON path in the create-payout body, e.g. payee.cardNumber'),
  type: z.literal('string'),
  format: z.string().describe('A stable name of the format (pan, e164, iban, bic, tron-address, evm-address, ...)'),
  pattern: z
    .string()
    .optional()
    .describe('An ECMAScript regular expression the whole value matches; some formats check more'),
  required: z.boolean(),
  description: z.string(),
});
export type PayoutFieldSpec = z.infer<typeof payoutFieldSpec>;

export const listMethodsQuery = z
  .object({
    shopId: uuid(),
    includeDisabled: optional(z.boolean().describe('Operators see disabled methods too; merchants never do')),
    ...operatorMember(),
  })
  .describe("Lists a shop's payment or payout methods");
export type ListMethodsQuery = z.infer<typeof listMethodsQuery>;

export const payoutFieldsQuery = z
  .object({
    shopId: uuid(),
    method: code,
    currency: z.string().min(1).max(32),
    tokenStandard: optional(z.string().max(16)),
    walletType: optional(walletType),
  })
  .describe('Which payee fields a payout with this method, currency and wallet type needs');
export type PayoutFieldsQuery = z.infer<typeof payoutFieldsQuery>;

export const payoutFieldsView = z.object({
  method: z.string(),
  currency: z.string(),
  tokenStandard: z.string().optional(),
  walletType: walletType.optional(),
  fields: z.array(payoutFieldSpec),
});
export type PayoutFieldsView = z.infer<typeof payoutFieldsView>;

/**
 * What the payouts service asks before it accepts a payout: is this method usable for this
 * currency, wallet type and amount, and which payee fields must the payout carry. A refusal is
 * `unprocessable` with `errors[]` naming `payout.method`, `payout.cost.currency`, `walletType` or
 * `payout.cost.amount`.
 */
export const resolvePayoutMethodQuery = payoutFieldsQuery
  .extend({ amount: decimal() })
  .describe('Is this payout method usable for this currency, wallet type and amount, and with which fields');
export type ResolvePayoutMethodQuery = z.infer<typeof resolvePayoutMethodQuery>;

export const resolvedPayoutMethod = z.object({ method: methodView, fields: z.array(payoutFieldSpec) });
export type ResolvedPayoutMethod = z.infer<typeof resolvedPayoutMethod>;

/** The definition operators give; checked by `checkMethodDefinition` in `@payments/methods-domain`. */
export const methodDefinition = z.object({
  code,
  instrumentType,
  cardBrands: optional(z.array(z.enum(CardBrands))),
  walletTypes: optional(z.array(walletType)),
  dataEntryMode: optional(z.enum(DataEntryModes)),
  currencies: z.array(methodCurrency),
  provider,
  enabled: z.boolean(),
});
export type MethodDefinition = z.infer<typeof methodDefinition>;

const methodRef = { methodId: uuid(), shopId: uuid(), direction };

/** Created with the id the gateway assigned, so a resent command finds the method it made. */
export const createMethodCommand = methodDefinition
  .extend({ ...methodRef, ...operatorMember() })
  .describe('Creates a payment or payout method of a shop, with the id the gateway assigned');
export type CreateMethodCommand = z.infer<typeof createMethodCommand>;

/** Changes what is given and keeps the rest; the result is checked as a whole. */
export const updateMethodCommand = methodDefinition
  .omit({ instrumentType: true })
  .partial()
  .extend({ ...methodRef, ...operatorMember() })
  .describe('Changes what is given of a method and keeps the rest');
export type UpdateMethodCommand = z.infer<typeof updateMethodCommand>;

export const deleteMethodCommand = z
  .object({ ...methodRef, ...operatorMember() })
  .describe('Deletes a method of a shop');
export type DeleteMethodCommand = z.infer<typeof deleteMethodCommand>;
