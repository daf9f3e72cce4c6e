import { z } from 'zod';
import { decimal, optional } from './schema';

export const ProviderEventKinds = ['payment', 'payout', 'p2p'] as const;
export type ProviderEventKind = (typeof ProviderEventKinds)[number];
export const ProviderStatuses = ['success', 'failed', 'pending'] as const;
export type ProviderStatus = (typeof ProviderStatuses)[number];

/** `provider.callbacks.received`: the raw callback exactly as it came, for audit and replay. */
export const ProviderCallbackTypes = { received: 'provider.callback.received' } as const;
export const providerCallbackReceived = z
  .object({
    callbackId: z.string(),
    providerCode: z.string(),
    receivedAt: z.string(),
    rawBody: z.string(),
  })
  .describe('A provider callback exactly as it came, kept for audit and replay');
export type ProviderCallbackReceived = z.infer<typeof providerCallbackReceived>;

/**
 * `provider.events`: one provider's vocabulary turned into ours. Every adapter produces exactly
 * this shape, keyed by `reference` (our order, payout or P2P id).
 */
export const ProviderEventTypes = { event: 'provider.event' } as const;
export const providerEvent = z
  .object({
    providerCode: z.string().min(1).max(64),
    providerEventId: z
      .string()
      .min(1)
      .max(128)
      .describe("The provider's own id of this callback: a provider that repeats it repeats this id"),
    kind: z.enum(ProviderEventKinds),
    reference: z.string().min(1).max(128).describe('Our order, payout or P2P id'),
    paymentId: optional(z.string().max(128)),
    status: z.enum(ProviderStatuses),
    amount: decimal(),
    currency: z.string().min(1).max(32),
    tokenStandard: optional(z.string().max(16)),
    reason: optional(z.string().max(512)),
    receivedAt: z.string(),
  })
  .describe('A provider callback in our vocabulary, whichever provider sent it');
export type ProviderEvent = z.infer<typeof providerEvent>;
