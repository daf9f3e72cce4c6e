import { randomBytes } from 'node:crypto';
import { EnvReader } from '@payments/platform';
import { KeyRing, parseKeyList } from './envelope';

export interface CardVaultConfig {
  /** CARD_VAULT_KEYS: every key that opens; the last one seals. */
  keys: KeyRing;
  /** CARD_VAULT_FINGERPRINT_KEY: the HMAC key of fingerprints, its own, never an encryption key. */
  fingerprintKey: Buffer;
}

/**
 * The vault's keys, required everywhere: there is no built-in fallback key, so a deployment that
 * forgot them does not start (`npm start` and the tests generate their own, decision 111).
 */
export function readCardVaultConfig(env: EnvReader): CardVaultConfig {
  const keys = env.parsed('CARD_VAULT_KEYS', (raw) => {
    const parsed = parseKeyList(raw);
    return 'problem' in parsed ? parsed : { value: new KeyRing(parsed.keys) };
  });
  const fingerprintKey = env.parsed('CARD_VAULT_FINGERPRINT_KEY', (raw) => {
    const key = Buffer.from(raw, 'base64');
    return key.length >= 32 ? { value: key } : { problem: `must be at least 32 bytes (base64), got ${key.length}` };
  });
  // Placeholders only while problems are pending: env.done() throws before anything uses them.
  return {
    keys: keys ?? new KeyRing([{ id: 'unset', key: Buffer.alloc(32) }]),
    fingerprintKey: fingerprintKey ?? Buffer.alloc(0),
  };
}

/** A fresh key list entry, `<id>:<base64 of 32 random bytes>`, and a fingerprint key: for local runs and tests. */
export function generateCardVaultKey(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** The environment of a vault with new random keys (tests; `npm start` keeps its own under .run/). */
export function generatedCardVaultEnv(keyIds: string[] = ['k1']): {
  CARD_VAULT_KEYS: string;
  CARD_VAULT_FINGERPRINT_KEY: string;
} {
  return {
    CARD_VAULT_KEYS: keyIds.map(generateCardVaultKey).join(','),
    CARD_VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
  };
}
