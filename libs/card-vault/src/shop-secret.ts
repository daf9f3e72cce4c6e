import { EnvReader } from '@payments/platform';
import { KeyRing, parseKeyList } from './envelope';

/**
 * A shop's callback-signing secret at rest and on `shops.settings` (decision 111): sealed with the
 * card vault's keys, bound to its shop. Values from before sealing (no `v1:`) are read as they are
 * until the services re-seal them at boot.
 */
const associatedData = (shopId: string) => `shop-callback-secret:${shopId}`;

export function isSealed(stored: string): boolean {
  return stored.startsWith('v1:');
}

export function sealShopSecret(keys: KeyRing, shopId: string, secret: string): string {
  return keys.seal(secret, associatedData(shopId));
}

/** The secret itself, for signing; throws EnvelopeError for a sealed value that fails authentication. */
export function openShopSecret(keys: KeyRing, shopId: string, stored: string): string {
  return isSealed(stored) ? keys.open(stored, associatedData(shopId)) : stored;
}

/** True when the stored value is in clear or sealed under another key than the active one. */
export function needsReseal(keys: KeyRing, stored: string): boolean {
  return !isSealed(stored) || KeyRing.keyIdOf(stored) !== keys.activeKeyId;
}

export function resealShopSecret(keys: KeyRing, shopId: string, stored: string): string {
  return sealShopSecret(keys, shopId, openShopSecret(keys, shopId, stored));
}

/** CARD_VAULT_KEYS alone: what a service that seals secrets but never sees a card needs. */
export function readSecretKeys(env: EnvReader): KeyRing {
  const keys = env.parsed('CARD_VAULT_KEYS', (raw) => {
    const parsed = parseKeyList(raw);
    return 'problem' in parsed ? parsed : { value: new KeyRing(parsed.keys) };
  });
  return keys ?? new KeyRing([{ id: 'unset', key: Buffer.alloc(32) }]);
}

/**
 * A shop's secret with a provider (Click's SECRET_KEY, a Payme cashbox's key; decision 341): the
 * same envelope, bound to the shop and the provider, so a value moved to another shop or provider
 * no longer opens. Only sealed values exist: there was never a clear one at rest.
 */
const providerAssociatedData = (shopId: string, provider: string) => `shop-provider-secret:${shopId}:${provider}`;

export function sealProviderSecret(keys: KeyRing, shopId: string, provider: string, secret: string): string {
  return keys.seal(secret, providerAssociatedData(shopId, provider));
}

/** The secret itself, to check a provider's call; throws EnvelopeError for a value that does not open. */
export function openProviderSecret(keys: KeyRing, shopId: string, provider: string, sealed: string): string {
  return keys.open(sealed, providerAssociatedData(shopId, provider));
}
