import type { ProviderClient, ProviderDefinition } from '@payments/providers/core';
import { clickProvider } from '@payments/providers/click';
import { paymeProvider } from '@payments/providers/payme';
import { sandboxProvider } from '@payments/providers/sandbox';
import { sandboxBProvider } from '@payments/providers/sandbox-b';

/**
 * Every provider, by its code: the one list the dispatchers, callbacks-ingest and the conformance
 * run read. Adding a provider is its folder under libs/providers and one line here.
 */
export const PROVIDERS: ReadonlyMap<string, ProviderDefinition> = new Map(
  [sandboxProvider, sandboxBProvider, clickProvider, paymeProvider].map((p) => [p.code, p]),
);

/** The provider of a code, or a failure that names it and the codes there are. */
export function providerOf(code: string): ProviderDefinition {
  const p = PROVIDERS.get(code);
  if (!p) throw new Error(`unknown provider "${code}"; registered: ${[...PROVIDERS.keys()].join(', ')}`);
  return p;
}

/** How the dispatchers reach a provider we send to; a failure names a provider that is only paid from its app. */
export function clientOf(code: string, baseUrl: string): ProviderClient {
  const p = providerOf(code);
  if (!p.client) throw new Error(`provider "${code}" takes no requests from us; it is paid from its own app`);
  return p.client(baseUrl);
}
