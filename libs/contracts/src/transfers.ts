import { Check, decimal, literal, obj, optional, str } from './schema';

/**
 * What payouts and P2P transactions share: money going out to someone, with one status set.
 * `need_action` waits for the provider's late answer (a timeout) or for an operator (an amount or
 * currency the provider reported differently: never accepted automatically for money going out).
 */
export const TransferStatuses = ['registered', 'in_progress', 'need_action', 'completed', 'failed'] as const;
export type TransferStatus = (typeof TransferStatuses)[number];

export interface TransferCost {
  amount: string;
  currency: string;
  tokenStandard?: string;
}

export const transferCost: Check<TransferCost> = obj({
  amount: decimal(),
  currency: str({ min: 1, max: 32 }),
  tokenStandard: optional(str({ max: 16 })),
});

/** An http(s) URL given per object, overriding the shop's callback URL (checked at the HTTP edge). */
export const perObjectCallbackUrl = (): Check<string> => str({ min: 8, max: 2048, pattern: /^https?:\/\/[^\s]+$/i });

export const transferStatus = literal(...TransferStatuses);
export const previousTransferStatus: Check<TransferStatus | null> = (v, p) =>
  v === null ? { ok: true, value: null } : transferStatus(v, p);
