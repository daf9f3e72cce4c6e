import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'sk_';

/** A new shop API key: shown once to the operator, stored only as its hash. */
export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 10) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateCallbackSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64url');
}

/** `Authorization: Bearer <token>` → the token, or undefined when the header is absent or malformed. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+([A-Za-z0-9_\-.~+/=]{8,512})\s*$/);
  return match?.[1];
}
