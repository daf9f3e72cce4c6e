import { z } from 'zod';
import { costDto } from './orders';
import { decimal, optional, uuid } from './schema';

/** Requests on `ledger.commands` (request-reply: the payouts service, the gateway). */
export const LedgerCommandTypes = {
  reservePayout: 'ledger.reserve_payout',
  releasePayout: 'ledger.release_payout',
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
