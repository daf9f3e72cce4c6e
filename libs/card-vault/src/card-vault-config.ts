import { randomBytes } from 'node:crypto';
import { EnvReader } from '@payments/platform';
import { KeyRing, parseKeyList } from './envelope';

export interface CardVaultConfig {
  /** CARD_VAULT_KEYS: every key that opens; the last one seals. */
  keys: KeyRing;
  /**
   * CARD_VAULT_FINGERPRINT_KEY: the HMAC key of fingerprints, its own, never an encryption key.
   * Only where cards are tokenized (decision 259); undefined elsewhere.
   */
  fingerprintKey?: Buffer;
  /** Said once at boot when the service was given a fingerprint key it does not need. */
  fingerprintKeyWarning?: string;
}

/**
 * What a service does with the fingerprint key (decision 259): `required` where cards are
 * tokenized (the gateway, checkout), `upgrade-only` where only the migration of a database from
 * before the vault tokenizes (payouts, p2p), `none` where the vault only opens, erases or rotates
 * numbers (orders, `vault:rotate`).
 */
export type FingerprintKeyUse = 'required' | 'upgrade-only' | 'none';

/** The configuration of a vault that tokenizes: it has the fingerprint key. */
export type TokenizingCardVaultConfig = CardVaultConfig & { fingerprintKey: Buffer };

/**
 * The vault's keys: there is no built-in fallback key, so a deployment that forgot them does not
 * start (`npm start` and the tests generate their own, decision 111). The fingerprint key only
 * where `use` says it is needed.
 */
export function readCardVaultConfig(env: EnvReader, use?: 'required'): TokenizingCardVaultConfig;
export function readCardVaultConfig(env: EnvReader, use: FingerprintKeyUse): CardVaultConfig;
export function readCardVaultConfig(env: EnvReader, use: FingerprintKeyUse = 'required'): CardVaultConfig {
  const keys = env.parsed('CARD_VAULT_KEYS', (raw) => {
    const parsed = parseKeyList(raw);
    return 'problem' in parsed ? parsed : { value: new KeyRing(parsed.keys) };
  });
  // Placeholders only while problems are pending: env.done() throws before anything uses them.
  const config: CardVaultConfig = { keys: keys ?? new KeyRing([{ id: 'unset', key: Buffer.alloc(32) }]) };
  const given = env.optionalString('CARD_VAULT_FINGERPRINT_KEY') !== undefined;
  if (use === 'none') {
    if (given)
      config.fingerprintKeyWarning =
        'CARD_VAULT_FINGERPRINT_KEY is set but this service never tokenizes a card: it is not read; ' +
        'remove it from its environment (decision 259)';
    return config;
  }
  if (use === 'upgrade-only' && !given) return config;
  const fingerprintKey = env.parsed('CARD_VAULT_FINGERPRINT_KEY', (raw) => {
    const key = Buffer.from(raw, 'base64');
    return key.length >= 32 ? { value: key } : { problem: `must be at least 32 bytes (base64), got ${key.length}` };
  });
  config.fingerprintKey = fingerprintKey ?? Buffer.alloc(0);
  if (use === 'upgrade-only')
    config.fingerprintKeyWarning =
      'CARD_VAULT_FINGERPRINT_KEY is set: this service uses it only to move card numbers of a database ' +
      'from before the vault into it; once it has started, remove it from its environment (decision 259)';
  return config;
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
