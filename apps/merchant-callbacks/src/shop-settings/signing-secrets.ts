import { KeyRing, openShopSecret } from '@payments/card-vault';
import { signWithEach } from '@payments/callback-signature';
import { ShopCallbackSettings } from './shop-callback-settings.repository';

/**
 * The secrets a shop's events are signed with, opened from their sealed form (decision 111): the
 * current one, and during a rotation's overlap the replaced one after it. None while the shop or its
 * secret is not known yet. Callbacks and the events feed both sign with these, so an event verifies
 * the same way wherever the merchant got it.
 */
export function signingSecrets(keys: KeyRing, shopId: string, shop: ShopCallbackSettings, now: Date): string[] {
  if (shop.kind !== 'known' || !shop.callbackSecret) return [];
  const current = openShopSecret(keys, shopId, shop.callbackSecret);
  const previous = shop.previousCallbackSecret;
  const overlapping = previous && shop.previousCallbackSecretExpiresAt && shop.previousCallbackSecretExpiresAt > now;
  return overlapping ? [current, openShopSecret(keys, shopId, previous)] : [current];
}

/** The `X-Signature` value for a body: one `v1=` per secret; null when there is none to sign with. */
export function signatureFor(secrets: readonly string[], rawBody: string, timestampSeconds: number): string | null {
  return secrets.length ? signWithEach(secrets, rawBody, timestampSeconds) : null;
}
