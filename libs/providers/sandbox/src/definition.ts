import type { ProviderDefinition } from '@payments/providers/core';
import { SandboxProviderClient } from './client';
import { parseSandboxCallback, SANDBOX_PROVIDER_CODE, SANDBOX_STATUS_MAP } from './sandbox-callback';
import { SIGNATURE_HEADER, verifySignature } from './signature';
import { sandboxConformanceKit } from './simulator/conformance-kit';

/**
 * The sandbox acquirer as a provider: the reference every other folder follows. It takes every
 * operation, instrument, brand and currency, so that local runs and tests can use it for anything.
 */
export const sandboxProvider: ProviderDefinition = {
  code: SANDBOX_PROVIDER_CODE,
  displayName: 'SandboxPay',
  capabilities: {
    operations: ['payment', 'payout', 'p2p'],
    instruments: ['card', 'wallet', 'bank_transfer', 'mobile_top_up', 'crypto'],
    brands: ['visa', 'mastercard', 'mir', 'humo', 'uzcard', 'unionpay', 'maestro', 'amex'],
    currencies: ['*'],
  },
  client: (baseUrl) => new SandboxProviderClient(baseUrl),
  inbound: {
    kind: 'notification',
    verify: (headers, rawBody, secret, now) => {
      const h = headers[SIGNATURE_HEADER];
      return verifySignature(Array.isArray(h) ? h[0] : h, rawBody, secret, now);
    },
    normalize: parseSandboxCallback,
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
  conformance: sandboxConformanceKit,
};
