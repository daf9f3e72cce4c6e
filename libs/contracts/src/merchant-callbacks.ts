import { z } from 'zod';
import { optional, uuid } from './schema';
import { operatorMember } from './operator-identity';

// merchant-callbacks reads orders.events, payouts.events, p2p.events and shops.settings with their
// producers' own schemas (orders.ts, payouts.ts, p2p.ts, shops.ts): one contract, one schema.

/** Operators' requests on `merchant-callbacks.commands` (request-reply from the gateway). */
export const MerchantCallbackCommandTypes = {
  list: 'callbacks.list',
  get: 'callbacks.get',
  replay: 'callbacks.replay',
  replayMany: 'callbacks.replay_many',
  /** A shop's events feed (`GET /events` of the merchant API). */
  feed: 'callbacks.feed',
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
    ...operatorMember(),
  })
  .describe('Lists merchant-callback deliveries, newest first, a page at a time');
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

export const deliveryRef = z.object({ deliveryId: uuid(), ...operatorMember() }).describe('Names one delivery');
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
    ...operatorMember(),
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

/**
 * What the feed can be narrowed to: the kinds of object whose status changes it carries, and the
 * shop's balance (its changes, decision 314).
 */
export const FeedObjectTypes = ['order', 'payout', 'p2p', 'balance'] as const;
export type FeedObjectType = (typeof FeedObjectTypes)[number];

export const readFeedQuery = z
  .object({
    shopId: uuid(),
    afterPosition: z.int().min(0).describe("A position in the shop's feed; 0 reads from the oldest kept event"),
    limit: z.int().min(1).max(500),
    objectType: optional(z.enum(FeedObjectTypes)),
    objectId: optional(uuid()),
  })
  .describe("Reads a shop's status-change and balance events after a position, oldest first");
export type ReadFeedQuery = z.infer<typeof readFeedQuery>;

export const feedEvent = z.object({
  position: z.int().describe("The event's place in its shop's one total order"),
  eventId: z.string(),
  type: z.string(),
  objectType: z.enum(FeedObjectTypes),
  objectId: z.string(),
  sequence: z.int(),
  body: z
    .string()
    .describe("The callback body, byte for byte as it is (or was) posted; a balance event's body is never posted"),
  signature: z.string().nullable().describe("X-Signature of the body, made now with the shop's current secret"),
});
export type FeedEvent = z.infer<typeof feedEvent>;

export const feedPage = z.object({
  events: z.array(feedEvent),
  /** The position to read after next time: the last event's, or the one asked for when none came. */
  lastPosition: z.int(),
  hasMore: z.boolean(),
});
export type FeedPage = z.infer<typeof feedPage>;
