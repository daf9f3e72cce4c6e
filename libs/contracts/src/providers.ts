import { Check, decimal, literal, obj, optional, str } from './schema';

export const ProviderEventKinds = ['payment', 'payout', 'p2p'] as const;
export type ProviderEventKind = (typeof ProviderEventKinds)[number];
export const ProviderStatuses = ['success', 'failed', 'pending'] as const;
export type ProviderStatus = (typeof ProviderStatuses)[number];

/** `provider.callbacks.received`: the raw callback exactly as it came, for audit and replay. */
export const ProviderCallbackTypes = { received: 'provider.callback.received' } as const;
export interface ProviderCallbackReceived {
  callbackId: string;
  providerCode: string;
  receivedAt: string;
  rawBody: string;
}

/**
 * `provider.events`: one provider's vocabulary turned into ours. Every adapter produces exactly
 * this shape, keyed by `reference` (our order, payout or P2P id).
 */
export const ProviderEventTypes = { event: 'provider.event' } as const;
export interface ProviderEvent {
  providerCode: string;
  /** The provider's own id of this callback: a provider that repeats it repeats this id. */
  providerEventId: string;
  kind: ProviderEventKind;
  reference: string;
  paymentId?: string;
  status: ProviderStatus;
  amount: string;
  currency: string;
  tokenStandard?: string;
  reason?: string;
  receivedAt: string;
}
export const providerEvent: Check<ProviderEvent> = obj({
  providerCode: str({ min: 1, max: 64 }),
  providerEventId: str({ min: 1, max: 128 }),
  kind: literal(...ProviderEventKinds),
  reference: str({ min: 1, max: 128 }),
  paymentId: optional(str({ max: 128 })),
  status: literal(...ProviderStatuses),
  amount: decimal(),
  currency: str({ min: 1, max: 32 }),
  tokenStandard: optional(str({ max: 16 })),
  reason: optional(str({ max: 512 })),
  receivedAt: str(),
});
