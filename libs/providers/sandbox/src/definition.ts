import type { ProviderDefinition } from '@payments/providers/core';
import { SandboxProviderClient } from './client';
import { parseSandboxCallback, SANDBOX_PROVIDER_CODE, SANDBOX_STATUS_MAP } from './sandbox-callback';
import { SIGNATURE_HEADER, verifySignature } from './signature';
import { sandboxConformanceKitOf } from './simulator/conformance-kit';

/**
 * A simulated acquirer of apps/provider-sandbox as a provider, under `code`: the sandbox itself,
 * or a second sandbox acquirer that the same simulator serves under its own path (`sandbox-b`,
 * decision 323) so that routing and failover can be played locally. It takes every operation,
 * instrument, brand and currency, so that local runs and tests can use it for anything.
 */
export function sandboxAcquirer(code: string, displayName: string): ProviderDefinition {
  return {
    code,
    displayName,
    capabilities: {
      operations: ['payment', 'payout', 'p2p'],
      instruments: ['card', 'wallet', 'bank_transfer', 'mobile_top_up', 'crypto'],
      brands: ['visa', 'mastercard', 'mir', 'humo', 'uzcard', 'unionpay', 'maestro', 'amex'],
      currencies: ['*'],
    },
    client: (baseUrl) => new SandboxProviderClient(baseUrl, code),
    inbound: {
      kind: 'notification',
      verify: (headers, rawBody, secret, now) => {
        const h = headers[SIGNATURE_HEADER];
        return verifySignature(Array.isArray(h) ? h[0] : h, rawBody, secret, now);
      },
      normalize: (rawBody) => parseSandboxCallback(rawBody, code),
    },
    statusMap: SANDBOX_STATUS_MAP,
    settings: {
      // The sandbox needs nothing per shop: anything given is a mistake, named.
      parse: (input) => {
        if (input === undefined || input === null) return { ok: true, value: {} };
        if (typeof input !== 'object' || Array.isArray(input))
          return { ok: false, errors: [{ path: '(settings)', message: 'must be an object' }] };
        const extra = Object.keys(input);
        return extra.length === 0
          ? { ok: true, value: {} }
          : { ok: false, errors: extra.map((path) => ({ path, message: 'is not a setting of the sandbox' })) };
      },
    },
    conformance: sandboxConformanceKitOf(code),
  };
}

/** The sandbox acquirer: the reference every other folder follows. */
export const sandboxProvider: ProviderDefinition = sandboxAcquirer(SANDBOX_PROVIDER_CODE, 'SandboxPay');
