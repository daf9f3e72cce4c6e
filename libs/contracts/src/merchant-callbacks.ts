import { array, Check, int, literal, obj, optional, str, uuid } from './schema';

// merchant-callbacks reads payouts.events and p2p.events with their producers' own checkers
// (payoutStatusChanged in payouts.ts, p2pStatusChanged in p2p.ts): one contract, one checker.

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
