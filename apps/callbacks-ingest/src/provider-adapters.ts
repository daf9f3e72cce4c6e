import type { NotificationInbound } from '@payments/providers/core';
import { PROVIDERS } from '@payments/providers/registry';

export type { Normalization, Verification } from '@payments/providers/core';

/** One provider's way of signing and wording callbacks, turned into ours (its folder's inbound side). */
export interface ProviderAdapter extends NotificationInbound {
  code: string;
}

/**
 * The providers that notify us by signed callbacks (`POST /callbacks/{code}`), from the one
 * registry; those that call us and wait for an answer (Click) have controllers of their own.
 */
export const PROVIDER_ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  [...PROVIDERS.values()].flatMap((p) =>
    p.inbound.kind === 'notification' ? [[p.code, { ...p.inbound, code: p.code }] as const] : [],
  ),
);
