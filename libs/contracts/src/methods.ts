import { array, bool, Check, decimal, literal, obj, optional, str, uuid } from './schema';

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

export const WalletTypes = ['personal', 'company'] as const;
export type WalletType = (typeof WalletTypes)[number];

export const MethodDirections = ['payment', 'payout'] as const;
export type MethodDirection = (typeof MethodDirections)[number];

/** One currency a method offers, with optional limits per operation (decimal strings). */
export interface MethodCurrency {
  currency: string;
  tokenStandard?: string;
  minAmount?: string;
  maxAmount?: string;
}

/**
 * A method as merchants see it. `walletTypes` is present only when at least one is configured
 * (spec 2.5); `cardBrands` only on card methods.
 */
export interface MethodView {
  id: string;
  code: string;
  instrumentType: MethodInstrumentType;
  cardBrands?: CardBrand[];
  walletTypes?: WalletType[];
  currencies: MethodCurrency[];
  provider: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}
export type PaymentMethodView = MethodView;
export type PayoutMethodView = MethodView;

export interface MethodListView {
  shopId: string;
  methods: MethodView[];
}

/** One payee field a payout needs: where it goes in the payout body and what it must look like. */
export interface PayoutFieldSpec {
  /** JSON path in the create-payout body, e.g. `payee.cardNumber`. */
  path: string;
  type: 'string';
  /** A stable name of the format (`pan`, `e164`, `iban`, `bic`, `tron-address`, `evm-address`, …). */
  format: string;
  /** An ECMAScript regular expression the whole value matches; some formats check more (Luhn, IBAN checksum). */
  pattern?: string;
  required: boolean;
  description: string;
}

const walletType = literal(...WalletTypes);

export interface ListMethodsQuery {
  shopId: string;
  /** Operators see disabled methods too; merchants never do. */
  includeDisabled?: boolean;
}
export const listMethodsQuery: Check<ListMethodsQuery> = obj({ shopId: uuid(), includeDisabled: optional(bool()) });

export interface PayoutFieldsQuery {
  shopId: string;
  method: string;
  currency: string;
  tokenStandard?: string;
  walletType?: WalletType;
}
export const payoutFieldsQuery: Check<PayoutFieldsQuery> = obj({
  shopId: uuid(),
  method: str({ min: 1, max: 64 }),
  currency: str({ min: 1, max: 32 }),
  tokenStandard: optional(str({ max: 16 })),
  walletType: optional(walletType),
});

export interface PayoutFieldsView {
  method: string;
  currency: string;
  tokenStandard?: string;
  walletType?: WalletType;
  fields: PayoutFieldSpec[];
}

/**
 * What the payouts service asks before it accepts a payout: is this method usable for this
 * currency, wallet type and amount, and which payee fields must the payout carry. A refusal is
 * `unprocessable` with `errors[]` naming `payout.method`, `payout.cost.currency`, `walletType` or
 * `payout.cost.amount`.
 */
export interface ResolvePayoutMethodQuery extends PayoutFieldsQuery {
  amount: string;
}
export const resolvePayoutMethodQuery: Check<ResolvePayoutMethodQuery> = obj({
  shopId: uuid(),
  method: str({ min: 1, max: 64 }),
  currency: str({ min: 1, max: 32 }),
  tokenStandard: optional(str({ max: 16 })),
  walletType: optional(walletType),
  amount: decimal(),
});

export interface ResolvedPayoutMethod {
  method: PayoutMethodView;
  fields: PayoutFieldSpec[];
}

/** The definition operators give; checked by `checkMethodDefinition` in `@payments/methods-domain`. */
export interface MethodDefinition {
  code: string;
  instrumentType: MethodInstrumentType;
  cardBrands?: CardBrand[];
  walletTypes?: WalletType[];
  currencies: MethodCurrency[];
  provider: string;
  enabled: boolean;
}

const methodCurrency: Check<MethodCurrency> = obj({
  currency: str({ min: 1, max: 32 }),
  tokenStandard: optional(str({ max: 16 })),
  minAmount: optional(decimal()),
  maxAmount: optional(decimal()),
});

/** Created with the id the gateway assigned, so a resent command finds the method it made. */
export interface CreateMethodCommand extends MethodDefinition {
  methodId: string;
  shopId: string;
  direction: MethodDirection;
}
export const createMethodCommand: Check<CreateMethodCommand> = obj({
  methodId: uuid(),
  shopId: uuid(),
  direction: literal(...MethodDirections),
  code: str({ min: 1, max: 64 }),
  instrumentType: literal(...MethodInstrumentTypes),
  cardBrands: optional(array(literal(...CardBrands))),
  walletTypes: optional(array(walletType)),
  currencies: array(methodCurrency),
  provider: str({ min: 1, max: 64 }),
  enabled: bool(),
});

/** Changes what is given and keeps the rest; the result is checked as a whole. */
export interface UpdateMethodCommand extends Partial<Omit<MethodDefinition, 'instrumentType'>> {
  methodId: string;
  shopId: string;
  direction: MethodDirection;
}
export const updateMethodCommand: Check<UpdateMethodCommand> = obj({
  methodId: uuid(),
  shopId: uuid(),
  direction: literal(...MethodDirections),
  code: optional(str({ min: 1, max: 64 })),
  cardBrands: optional(array(literal(...CardBrands))),
  walletTypes: optional(array(walletType)),
  currencies: optional(array(methodCurrency)),
  provider: optional(str({ min: 1, max: 64 })),
  enabled: optional(bool()),
});

export interface DeleteMethodCommand {
  methodId: string;
  shopId: string;
  direction: MethodDirection;
}
export const deleteMethodCommand: Check<DeleteMethodCommand> = obj({
  methodId: uuid(),
  shopId: uuid(),
  direction: literal(...MethodDirections),
});
