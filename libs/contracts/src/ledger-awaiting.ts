import { z } from 'zod';
import { operatorMember } from './operator-identity';
import { decimal, optional, uuid } from './schema';

/**
 * Operators' view of the credits that wait in a shop's suspense for a rate, and the release of a
 * parked one (decision 344), on the operator path `ledger.ops-commands` with the operator on each
 * (decision 301).
 */
export const listAwaitingCreditsQuery = z
  .object({
    shopId: optional(uuid().describe("One shop's credits; all shops' without it")),
    creditId: optional(uuid().describe('That one credit (the list has it, or is empty)')),
    limit: z.number().int().min(1).max(100),
    ...operatorMember(),
  })
  .describe('Lists the credits waiting in suspense for a rate, parked ones included, oldest first');
export type ListAwaitingCreditsQuery = z.infer<typeof listAwaitingCreditsQuery>;

export const awaitingCreditView = z
  .object({
    creditId: z.string().describe('The `order_completed` transaction that put the net in suspense'),
    shopId: z.string(),
    orderId: z.string(),
    orderCurrency: z.string().describe('The currency the net waits in (suspense)'),
    balanceCurrency: z
      .string()
      .nullable()
      .describe('The currency it converts to; null for a credit booked before it was recorded (never converted)'),
    amount: decimal().describe('The net queued, in `orderCurrency`'),
    createdAt: z.string().describe('When the order completed'),
    status: z
      .enum(['awaiting_rate', 'parked'])
      .describe(
        '`awaiting_rate`: converted by the next sweep once its pair has a rate; `parked`: left alone, see `parked`',
      ),
    parked: z.string().nullable().describe('Why the sweep leaves it alone: `refund hold`, or `conversion failed: …`'),
    parkedAt: z.string().nullable(),
  })
  .describe('A credit waiting in suspense for a rate (decision 304)');
export type AwaitingCreditView = z.infer<typeof awaitingCreditView>;

export const awaitingCreditList = z
  .object({
    items: z.array(awaitingCreditView),
    total: z.number().int().min(0).describe('How many credits wait in all (the list shows at most `limit`)'),
  })
  .describe('Credits waiting in suspense, oldest first');
export type AwaitingCreditList = z.infer<typeof awaitingCreditList>;

export const releaseCreditCommand = z
  .object({
    creditId: uuid(),
    reason: z.string().min(1).max(500).describe('Why: what was fixed'),
    ...operatorMember(),
  })
  .describe('Releases a parked credit back to the conversion queue (decision 344); admins only');
export type ReleaseCreditCommand = z.infer<typeof releaseCreditCommand>;

export const creditRelease = z
  .object({
    credit: awaitingCreditView.describe('The credit after the release'),
    released: z.boolean().describe('false: it was not parked (released before, or never parked); nothing changed'),
    wasParked: z.string().nullable().describe('What it was parked with before this release'),
  })
  .describe("The answer to a parked credit's release");
export type CreditRelease = z.infer<typeof creditRelease>;
