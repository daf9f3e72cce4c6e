import { z } from 'zod';
import { costDto, CostDto } from './orders';

/**
 * What payouts and P2P transactions share: money going out to someone, with one status set.
 * `need_action` waits for the provider's late answer (a timeout) or for an operator (an amount or
 * currency the provider reported differently: never accepted automatically for money going out).
 */
/** `cancelled`: a payout via payment page whose link expired before its recipient gave the details (issue 20). */
export const TransferStatuses = [
  'registered',
  'in_progress',
  'need_action',
  'completed',
  'failed',
  'cancelled',
] as const;
export type TransferStatus = (typeof TransferStatuses)[number];

/** The same money shape as an order's cost: one schema. */
export const transferCost = costDto;
export type TransferCost = CostDto;

/** An http(s) URL given per object, overriding the shop's callback URL (checked at the HTTP edge). */
export const perObjectCallbackUrl = () =>
  z
    .string()
    .min(8)
    .max(2048)
    .regex(/^https?:\/\/[^\s]+$/i, { error: 'must be an http(s) URL' });

export const transferStatus = z.enum(TransferStatuses);
export const previousTransferStatus = transferStatus.nullable().describe('null at creation');
