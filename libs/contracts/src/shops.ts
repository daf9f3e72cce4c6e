import { z } from 'zod';
import { optional, uuid } from './schema';

/** `shops.settings` (compacted, keyed by shop id): the whole current settings of one shop. */
export const ShopSettingsTypes = { snapshot: 'shop.settings' } as const;

export const DEFAULT_PROCESSING_TIMEOUT_SECONDS = 7 * 24 * 3600;

/**
 * A shop's accounts with providers (decision 341), by provider code: each as the provider's folder
 * validates it (`settings.parse`), its secret member (`settings.account.secret`) sealed with the
 * card vault's keys and bound to the shop and provider; `updatedAt` is when an operator last set it.
 */
export const providerAccounts = z
  .record(z.string().regex(/^[a-z0-9-]{1,32}$/), z.record(z.string(), z.string()))
  .describe(
    "The shop's accounts with providers that call us (Click, Payme), by provider code; each secret sealed (v1:<key id>:…): only callbacks-ingest opens it",
  );
export type ProviderAccounts = z.infer<typeof providerAccounts>;

/**
 * The public part of the same accounts (decision 342): each without its secret member and its
 * `updatedAt`, what the payment page's deeplinks carry (Click's service and merchant ids, Payme's
 * merchant id). Published beside the sealed accounts so a consumer that needs the ids never parses
 * a secret.
 */
export const providerIds = z
  .record(z.string().regex(/^[a-z0-9-]{1,32}$/), z.record(z.string(), z.string()))
  .describe(
    "The public ids of the shop's accounts with providers that call us (Click's serviceId and merchantId, Payme's merchantId), by provider code; never a secret",
  );
export type ProviderIds = z.infer<typeof providerIds>;

/** A `shops.settings` snapshot as the gateway publishes it, secret included. */
export const shopSettingsPublished = z
  .object({
    shopId: uuid(),
    companyId: uuid(),
    version: z.int().describe('Grows with every change; consumers ignore a snapshot older than the one they have'),
    shopName: optional(z.string().max(256).describe('The name payers see on hosted pages')),
    amountDeviation: z
      .object({ lowerPercent: z.string(), upperPercent: z.string() })
      .describe('Allowed deviation of a reported amount, in percent of the order amount (decimal strings)'),
    autoFinalizeNeedAction: z.boolean(),
    processingTimeout: z
      .object({ defaultSeconds: z.int(), byPaymentSetting: z.record(z.string(), z.int()) })
      .describe('Processing timeout of payment orders, and overrides per payment setting (instrument type)'),
    useCustomerDataAsPayer: z.boolean().describe('The company setting "Use customer data as payer information"'),
    // A snapshot that leaves it out means "no callback URL" too.
    callbackUrl: z.string().nullable().default(null).describe("The shop's callback URL; null when none is set"),
    defaultIntegration: z
      .enum(['host_to_host', 'hosted'])
      .default('host_to_host')
      .describe('What an order without paymentPageDesign.format gets (issue 20)'),
    payoutViaPaymentPage: z
      .boolean()
      .default(false)
      .describe('A payout without payee details gets a payout link for the recipient instead of a 400 (issue 20)'),
    redirectDomains: z
      .array(z.string())
      .default([])
      .describe('Domains (and their subdomains) that hosted pages may send the payer back to'),
    callbackSecret: optional(
      z
        .string()
        .min(1)
        .describe(
          "Signs the shop's callbacks, sealed with the card vault's keys (v1:<key id>:…, docs/security.md); only merchant-callbacks reads it. Optional: snapshots published before it existed still parse",
        ),
    ),
    previousCallbackSecret: optional(
      z.string().min(1).describe('After a rotation, the replaced secret (sealed): callbacks carry both signatures'),
    ),
    previousCallbackSecretExpiresAt: optional(
      z.string().describe('When callbacks stop carrying the signature of previousCallbackSecret (ISO 8601)'),
    ),
    providerAccounts: optional(providerAccounts),
    providerIds: optional(providerIds),
  })
  .describe('The whole current settings of one shop (compacted topic, keyed by shop id)');
export type ShopSettingsSnapshot = z.infer<typeof shopSettingsPublished>;

/**
 * What every consumer but merchant-callbacks reads: the snapshot without the secrets (the callback
 * secret, the sealed provider accounts; their public ids stay).
 * `shops.settings` is an internal topic, but a consumer that never parses the secret never stores it.
 */
export const shopSettingsSnapshot = shopSettingsPublished.omit({
  callbackSecret: true,
  previousCallbackSecret: true,
  previousCallbackSecretExpiresAt: true,
  providerAccounts: true,
});

/** What merchant-callbacks reads from a snapshot: the callback URL and the secret that signs the callbacks. */
export const shopCallbackSettings = shopSettingsPublished.pick({
  shopId: true,
  version: true,
  callbackUrl: true,
  callbackSecret: true,
  previousCallbackSecret: true,
  previousCallbackSecretExpiresAt: true,
});
export type ShopCallbackSettingsSnapshot = z.infer<typeof shopCallbackSettings>;

/** What callbacks-ingest reads from a snapshot: the shop's provider accounts (decision 341). */
export const shopProviderSettings = shopSettingsPublished.pick({ shopId: true, version: true, providerAccounts: true });
export type ShopProviderSettingsSnapshot = z.infer<typeof shopProviderSettings>;
