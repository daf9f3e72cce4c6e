import type { ProviderEvent } from '@payments/contracts';
import {
  parseSandboxCallback,
  SANDBOX_PROVIDER_CODE,
  SIGNATURE_HEADER,
  verifySignature,
} from '@payments/providers/sandbox';

export type Verification = { kind: 'valid'; timestamp: number } | { kind: 'invalid'; reason: string };
export type Normalization =
  { kind: 'ok'; event: Omit<ProviderEvent, 'receivedAt'> } | { kind: 'invalid'; reason: string };

/** One provider's way of signing and wording callbacks, turned into ours. */
export interface ProviderAdapter {
  code: string;
  verify(
    headers: Record<string, string | string[] | undefined>,
    rawBody: Buffer,
    secret: string,
    nowSeconds: number,
  ): Verification;
  normalize(rawBody: string): Normalization;
}

const sandbox: ProviderAdapter = {
  code: SANDBOX_PROVIDER_CODE,
  verify: (headers, rawBody, secret, now) => {
    const h = headers[SIGNATURE_HEADER];
    return verifySignature(Array.isArray(h) ? h[0] : h, rawBody, secret, now);
  },
  normalize: parseSandboxCallback,
};

export const PROVIDER_ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map([[sandbox.code, sandbox]]);
