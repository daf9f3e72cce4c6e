import { CommonConfig, ConfigError, EnvReader, readCommonConfig } from '@payments/platform';
import { KeyRing, readSecretKeys } from '@payments/card-vault';
import { RetryPolicy } from '@payments/merchant-callbacks-domain';

export interface MerchantCallbacksConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
  /** How long one POST to a merchant may take, connection included. */
  httpTimeoutMs: number;
  /** Callbacks in flight at once in this instance, all shops together. */
  concurrency: number;
  /** Callbacks in flight at once for one shop, so one slow merchant cannot take every slot. */
  perShopConcurrency: number;
  retry: RetryPolicy;
  /** Look for due deliveries at least this often, in case a NOTIFY was missed. */
  pollIntervalMs: number;
  /** Local development only: post to http URLs and to private or loopback addresses. */
  allowInsecureTargets: boolean;
  /** The events feed: how long deliveries are kept (at least 30 days) and how often older ones are purged (0: never). */
  feed: { retentionDays: number; purgeIntervalMs: number };
  /** CARD_VAULT_KEYS: shops' callback secrets are stored sealed and opened to sign (docs/security.md). */
  secretKeys: KeyRing;
}

export function loadMerchantCallbacksConfig(env = new EnvReader()): MerchantCallbacksConfig {
  const config: MerchantCallbacksConfig = {
    ...readCommonConfig(env, 'merchant-callbacks'),
    schema: env.string('MERCHANT_CALLBACKS_DB_SCHEMA', 'merchant_callbacks'),
    consumerGroup: env.string('MERCHANT_CALLBACKS_CONSUMER_GROUP', 'merchant-callbacks'),
    httpTimeoutMs: env.int('MERCHANT_CALLBACKS_TIMEOUT_MS', 5000, { min: 100, max: 60_000 }),
    concurrency: env.int('MERCHANT_CALLBACKS_CONCURRENCY', 64, { min: 1, max: 1000 }),
    perShopConcurrency: env.int('MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY', 16, { min: 1, max: 100 }),
    retry: {
      baseMs: env.int('MERCHANT_CALLBACKS_BACKOFF_BASE_MS', 1000, { min: 10, max: 3_600_000 }),
      capMs: env.int('MERCHANT_CALLBACKS_BACKOFF_CAP_MS', 3_600_000, { min: 10, max: 86_400_000 }),
      windowMs: env.int('MERCHANT_CALLBACKS_RETRY_WINDOW_MS', 25 * 3_600_000, { min: 1000, max: 30 * 86_400_000 }),
    },
    pollIntervalMs: env.int('MERCHANT_CALLBACKS_POLL_MS', 1000, { min: 20, max: 60_000 }),
    allowInsecureTargets: env.bool('CALLBACK_URL_ALLOW_INSECURE', false),
    feed: {
      retentionDays: env.int('MERCHANT_CALLBACKS_FEED_RETENTION_DAYS', 35, { min: 30, max: 3650 }),
      purgeIntervalMs: env.int('MERCHANT_CALLBACKS_PURGE_INTERVAL_MS', 3_600_000, { min: 0, max: 86_400_000 }),
    },
    secretKeys: readSecretKeys(env),
  };
  env.done('merchant-callbacks');
  if (config.retry.capMs < config.retry.baseMs) {
    throw new ConfigError(
      'merchant-callbacks: invalid configuration:\n  - MERCHANT_CALLBACKS_BACKOFF_CAP_MS must not be below MERCHANT_CALLBACKS_BACKOFF_BASE_MS',
    );
  }
  if (config.perShopConcurrency > config.concurrency) config.perShopConcurrency = config.concurrency;
  return config;
}
