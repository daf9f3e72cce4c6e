import { z } from 'zod';
import { optional, uuid } from './schema';

// merchant-callbacks reads orders.events, payouts.events, p2p.events and shops.settings with their
// producers' own schemas (orders.ts, payouts.ts, p2p.ts, shops.ts): one contract, one schema.

/** Operators' requests on `merchant-callbacks.commands` (request-reply from the gateway). */
export const MerchantCallbackCommandTypes = {
  list: 'callbacks.list',
  get: 'callbacks.get',
  replay: 'callbacks.replay',
  replayMany: 'callbacks.replay_many',
} as const;

export const DeliveryStatuses = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DeliveryStatuses)[number];

const deliveryStatus = z.enum(DeliveryStatuses);

export const listDeliveriesQuery = z
  .object({
    shopId: optional(uuid()),
    objectId: optional(uuid()),
    status: optional(deliveryStatus),
    limit: z.int(),
    cursor: optional(
      z
        .string()
        .regex(/^[0-9]{1,19}$/, { error: 'must be a cursor from a previous page' })
        .describe('Opaque; the nextCursor of the previous page'),
    ),
  })
  .describe('Lists merchant-callback deliveries, newest first, a page at a time');
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

export const deliveryRef = z.object({ deliveryId: uuid() }).describe('Names one delivery');
export type DeliveryRef = z.infer<typeof deliveryRef>;

export const replayDeliveriesCommand = z
  .object({
    deliveryIds: optional(z.array(uuid())),
    shopId: optional(uuid()),
    status: optional(deliveryStatus),
    since: optional(
      z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}T/, { error: 'must be an ISO timestamp' })
        .describe('Deliveries queued at or after it'),
    ),
  })
  .describe('Replays the deliveries named by id, or those of a shop matching a status and/or a start time');
export type ReplayDeliveriesCommand = z.infer<typeof replayDeliveriesCommand>;

export const deliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  type: z.string(),
  objectType: z.string(),
  objectId: z.string(),
  shopId: z.string(),
  sequence: z.int(),
  status: deliveryStatus,
  url: z.string().nullable().describe('Where it went (or goes next); null until known, and for skipped deliveries'),
  attempts: z.int(),
  lastResponseStatus: z.int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
});
export type DeliveryView = z.infer<typeof deliveryView>;

export const deliveryAttemptView = z.object({
  attempt: z.int(),
  at: z.string(),
  url: z.string(),
  responseStatus: z.int().nullable(),
  error: z.string().nullable(),
  latencyMs: z.number(),
});
export type DeliveryAttemptView = z.infer<typeof deliveryAttemptView>;

export const deliveryDetailView = deliveryView.extend({
  body: z.unknown().describe('The body as it is sent (the signature is made fresh at each attempt)'),
  attemptLog: z.array(deliveryAttemptView),
});
export type DeliveryDetailView = z.infer<typeof deliveryDetailView>;

export const deliveryPage = z.object({ items: z.array(deliveryView), nextCursor: z.string().nullable() });
export type DeliveryPage = z.infer<typeof deliveryPage>;

export const replayResult = z.object({ replayed: z.int(), deliveryIds: z.array(z.string()) });
export type ReplayResult = z.infer<typeof replayResult>;
