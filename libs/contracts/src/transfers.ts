import { z } from 'zod';
import { costDto, CostDto } from './orders';
import { optional, uuid } from './schema';
import { operatorMember } from './operator-identity';

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

/** Operators list any shop's payouts or P2P transactions (the console's search), newest first. */
export const listTransfersForOperatorQuery = z
  .object({
    id: optional(uuid()),
    status: optional(transferStatus),
    shopId: optional(uuid()),
    merchantId: optional(z.string().min(1).max(128)),
    limit: z.number().int().min(1).max(100),
    /** The nextCursor of the previous page. */
    cursor: optional(z.string().regex(/^[A-Za-z0-9_-]{1,200}$/)),
    ...operatorMember(),
  })
  .describe(
    "Lists any shop's payouts or P2P transactions for operators, newest first (by id, status, shop, merchant id)",
  );
export type ListTransfersForOperatorQuery = z.infer<typeof listTransfersForOperatorQuery>;

/** The opaque cursor of an operator's list, newest first: the last row's creation time and id. */
export function encodeListCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

/** A cursor is only what encodeListCursor wrote: anything else is refused before it reaches SQL. */
const CURSOR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function decodeListCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const parts = Buffer.from(cursor, 'base64url').toString().split('|');
  if (parts.length !== 2) return undefined;
  const [at, id] = parts;
  if (!CURSOR_AT.test(at) || !CURSOR_ID.test(id)) return undefined;
  const createdAt = new Date(at);
  // A four-digit year that PostgreSQL reads as the same instant (2026-02-31 would roll over).
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return undefined;
  return { createdAt, id };
}
