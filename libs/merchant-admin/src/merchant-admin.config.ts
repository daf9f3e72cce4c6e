import type { CardVaultConfig } from '@payments/card-vault';

/**
 * What the merchant administration code needs to know: the gateway's schema (where companies,
 * shops, API keys and idempotency records live), the callback-URL policy, and what payment links
 * are made from. The gateway provides its own config; the backoffice provides the gateway's schema
 * (decision 300).
 */
export interface MerchantAdminConfig {
  schema: string;
  callbackUrlAllowInsecure: boolean;
  /** Payment links are derived from its fingerprint key: only a service that has one makes them. */
  cardVault: CardVaultConfig;
  /** Where payers open hosted pages (apps/checkout): the base of `data.paymentLink`. */
  checkoutPublicUrl: string;
  idempotency: { staleAfterMs: number };
}

export const MERCHANT_ADMIN_CONFIG = Symbol('MERCHANT_ADMIN_CONFIG');
/** The gateway's outbox: `shops.settings` snapshots are published from it. */
export const MERCHANT_ADMIN_OUTBOX = Symbol('MERCHANT_ADMIN_OUTBOX');
