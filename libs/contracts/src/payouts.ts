import { Check, literal, obj, optional, record, str, uuid, int } from './schema';
import {
  perObjectCallbackUrl,
  previousTransferStatus,
  TransferCost,
  transferCost,
  TransferStatus,
  transferStatus,
} from './transfers';

export type PayoutStatus = TransferStatus;

/** Message types on `payouts.commands` (request-reply from the gateway). */
export const PayoutCommandTypes = { create: 'payout.create', get: 'payout.get', resolve: 'payout.resolve' } as const;

/** Message types on `payouts.events`. */
export const PayoutEventTypes = { statusChanged: 'payout.status_changed' } as const;

export const PayoutInstrumentTypes = ['card', 'wallet', 'bank_transfer', 'mobile_top_up', 'crypto'] as const;
export type PayoutInstrumentType = (typeof PayoutInstrumentTypes)[number];

/**
 * A payout the gateway has already checked: its method resolved through `methods` (the provider
 * and instrument type come from there) and its payee checked against the method's fields.
 */
export interface CreatePayoutCommand {
  payoutId: string;
  shopId: string;
  merchantPayoutId: string;
  /** The payout method code of the shop. */
  method: string;
  /** The provider the method sends through (from `methods`); `sandbox` locally. */
  provider: string;
  cost: TransferCost;
  /** Existing field, unchanged: kept and answered as given, independent of `cost.tokenStandard`. */
  cryptoTokenStandard?: string;
  description?: string;
  instrumentType?: PayoutInstrumentType;
  walletType?: 'personal' | 'company';
  payee: Record<string, unknown>;
  callbackUrl?: string;
}
export const createPayoutCommand: Check<CreatePayoutCommand> = obj({
  payoutId: uuid(),
  shopId: uuid(),
  merchantPayoutId: str({ min: 1, max: 128 }),
  method: str({ min: 1, max: 64 }),
  provider: str({ min: 1, max: 64 }),
  cost: transferCost,
  cryptoTokenStandard: optional(str({ max: 16 })),
  description: optional(str({ max: 1024 })),
  instrumentType: optional(literal(...PayoutInstrumentTypes)),
  walletType: optional(literal('personal', 'company')),
  payee: record(),
  callbackUrl: optional(perObjectCallbackUrl()),
});

export interface GetPayoutQuery {
  payoutId: string;
  shopId: string;
}
export const getPayoutQuery: Check<GetPayoutQuery> = obj({ payoutId: uuid(), shopId: uuid() });

/** The payout as merchants see it; answered by `payout.create` and `payout.get`. */
export interface PayoutView {
  id: string;
  shopId: string;
  status: PayoutStatus;
  statusCode?: string;
  statusDescription?: string;
  payout: {
    merchantPayoutId: string;
    method: string;
    cost: TransferCost;
    /** What the provider reported, while the payout waits in need_action for a mismatch. */
    reportedCost?: TransferCost;
    cryptoTokenStandard?: string;
    description?: string;
  };
  instrumentType?: PayoutInstrumentType;
  walletType?: 'personal' | 'company';
  /** The payee as given, with card and account numbers masked. */
  payee: Record<string, unknown>;
  callbackUrl?: string;
  createdAt: string;
  updatedAt: string;
}

/** `payouts.events`, keyed by payoutId; merchant-callbacks turns it into the merchant's callback. */
export interface PayoutStatusChanged {
  payoutId: string;
  shopId: string;
  merchantPayoutId: string;
  /** Per payout, 1 at creation, so merchants can drop stale callbacks. */
  sequence: number;
  status: PayoutStatus;
  /** null at creation. */
  previousStatus: PayoutStatus | null;
  statusCode?: string;
  statusDescription?: string;
  cost: TransferCost;
  /** The per-payout override of the shop's callback URL, when the merchant gave one. */
  callbackUrl?: string;
}
export const payoutStatusChanged: Check<PayoutStatusChanged> = obj({
  payoutId: uuid(),
  shopId: uuid(),
  merchantPayoutId: str(),
  sequence: int(),
  status: transferStatus,
  previousStatus: previousTransferStatus,
  statusCode: optional(str()),
  statusDescription: optional(str()),
  cost: transferCost,
  callbackUrl: optional(str()),
}) as Check<PayoutStatusChanged>;

/** An operator's decision on a payout in need_action, after checking with the provider. */
export interface ResolvePayoutCommand {
  payoutId: string;
  action: 'complete' | 'fail';
  operatorNote?: string;
}
export const resolvePayoutCommand: Check<ResolvePayoutCommand> = obj({
  payoutId: uuid(),
  action: literal('complete', 'fail'),
  operatorNote: optional(str({ max: 1024 })),
});
