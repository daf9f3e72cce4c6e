import { array, Check, decimal, int, literal, obj, optional, str, uuid } from './schema';

/**
 * What merchant-callbacks reads from `payouts.events` and `p2p.events`. The payouts and P2P
 * services own those contracts; these are the consumer's checkers of the fields it uses, so a
 * producer change that breaks callbacks is dead-lettered with a clear reason.
 */
// Event types of payouts.events and p2p.events: PayoutEventTypes and P2pEventTypes (payouts.ts, p2p.ts).

const cost = obj({ amount: decimal(), currency: str({ min: 1, max: 32 }), tokenStandard: optional(str({ max: 16 })) });
const previousStatus: Check<string | null> = (v, p) => (v === null || v === undefined ? { ok: true, value: null } : str({ min: 1 })(v, p));

export interface PayoutStatusChangedForCallbacks {
  payoutId: string;
  shopId: string;
  merchantPayoutId: string;
  sequence: number;
  status: string;
  previousStatus: string | null;
  statusCode?: string;
  statusDescription?: string;
  cost: { amount: string; currency: string; tokenStandard?: string };
  callbackUrl?: string;
}
export const payoutStatusChangedForCallbacks: Check<PayoutStatusChangedForCallbacks> = obj({
  payoutId: uuid(),
  shopId: uuid(),
  merchantPayoutId: str({ min: 1 }),
  sequence: int(),
  status: str({ min: 1 }),
  previousStatus,
  statusCode: optional(str()),
  statusDescription: optional(str()),
  cost,
  callbackUrl: optional(str({ min: 1, max: 2048 })),
}) as Check<PayoutStatusChangedForCallbacks>;

export interface P2pStatusChangedForCallbacks {
  p2pId: string;
  shopId: string;
  merchantP2pId: string;
  sequence: number;
  status: string;
  previousStatus: string | null;
  statusCode?: string;
  statusDescription?: string;
  cost: { amount: string; currency: string; tokenStandard?: string };
  callbackUrl?: string;
}
export const p2pStatusChangedForCallbacks: Check<P2pStatusChangedForCallbacks> = obj({
  p2pId: uuid(),
  shopId: uuid(),
  merchantP2pId: str({ min: 1 }),
  sequence: int(),
  status: str({ min: 1 }),
  previousStatus,
  statusCode: optional(str()),
  statusDescription: optional(str()),
  cost,
  callbackUrl: optional(str({ min: 1, max: 2048 })),
}) as Check<P2pStatusChangedForCallbacks>;

/**
 * What merchant-callbacks reads from a `shops.settings` snapshot: the callback URL and the secret
 * that signs the callbacks (the shared `shopSettingsSnapshot` checker drops the secret).
 */
export interface ShopCallbackSettingsSnapshot {
  shopId: string;
  version: number;
  callbackUrl: string | null;
  callbackSecret?: string;
}
export const shopCallbackSettings: Check<ShopCallbackSettingsSnapshot> = obj({
  shopId: uuid(),
  version: int(),
  callbackUrl: (v, p) => (v === null || v === undefined ? { ok: true, value: null } : str()(v, p)),
  callbackSecret: optional(str({ min: 1 })),
}) as Check<ShopCallbackSettingsSnapshot>;

/** Operators' requests on `merchant-callbacks.commands` (request-reply from the gateway). */
export const MerchantCallbackCommandTypes = {
  list: 'callbacks.list',
  get: 'callbacks.get',
  replay: 'callbacks.replay',
  replayMany: 'callbacks.replay_many',
} as const;

export const DeliveryStatuses = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DeliveryStatuses)[number];

export interface ListDeliveriesQuery {
  shopId?: string;
  objectId?: string;
  status?: DeliveryStatus;
  limit: number;
  /** Opaque; the `nextCursor` of the previous page. */
  cursor?: string;
}
export const listDeliveriesQuery: Check<ListDeliveriesQuery> = obj({
  shopId: optional(uuid()),
  objectId: optional(uuid()),
  status: optional(literal(...DeliveryStatuses)),
  limit: int(),
  cursor: optional(str({ pattern: /^[0-9]{1,19}$/ })),
}) as Check<ListDeliveriesQuery>;

export interface DeliveryRef {
  deliveryId: string;
}
export const deliveryRef: Check<DeliveryRef> = obj({ deliveryId: uuid() });

/** Replays the deliveries named by id, or those of a shop matching a status and/or a start time. */
export interface ReplayDeliveriesCommand {
  deliveryIds?: string[];
  shopId?: string;
  status?: DeliveryStatus;
  /** ISO timestamp: deliveries queued at or after it. */
  since?: string;
}
export const replayDeliveriesCommand: Check<ReplayDeliveriesCommand> = obj({
  deliveryIds: optional(array(uuid())),
  shopId: optional(uuid()),
  status: optional(literal(...DeliveryStatuses)),
  since: optional(str({ pattern: /^\d{4}-\d{2}-\d{2}T/ })),
}) as Check<ReplayDeliveriesCommand>;

export interface DeliveryView {
  id: string;
  eventId: string;
  type: string;
  objectType: string;
  objectId: string;
  shopId: string;
  sequence: number;
  status: DeliveryStatus;
  /** Where it went (or goes next); null until known, and for skipped deliveries. */
  url: string | null;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface DeliveryAttemptView {
  attempt: number;
  at: string;
  url: string;
  responseStatus: number | null;
  error: string | null;
  latencyMs: number;
}

export interface DeliveryDetailView extends DeliveryView {
  /** The body as it is sent (the signature is made fresh at each attempt). */
  body: unknown;
  attemptLog: DeliveryAttemptView[];
}

export interface DeliveryPage {
  items: DeliveryView[];
  nextCursor: string | null;
}

export interface ReplayResult {
  replayed: number;
  deliveryIds: string[];
}
