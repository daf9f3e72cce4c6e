import { CommonConfig, ConfigError, EnvReader, readCommonConfig } from '@payments/platform';

export interface PayoutsConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
  /** Base URL of the sandbox acquirer that payouts are sent to. */
  sandboxProviderUrl: string;
  /** How long one call to the provider may take; past it the payout's outcome is unknown (need_action). */
  providerTimeoutMs: number;
  /** Sends of a payout that the provider refused before taking it (down, 5xx), before the payout fails. */
  providerMaxAttempts: number;
  /** First delay between such sends; doubled each time. */
  providerRetryBackoffMs: number;
}

export function loadPayoutsConfig(env = new EnvReader()): PayoutsConfig {
  const config: PayoutsConfig = {
    ...readCommonConfig(env, 'payouts'),
    schema: env.string('PAYOUTS_DB_SCHEMA', 'payouts'),
    consumerGroup: env.string('PAYOUTS_CONSUMER_GROUP', 'payouts'),
    sandboxProviderUrl: env.string('SANDBOX_PROVIDER_URL', 'http://127.0.0.1:3002'),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
    providerMaxAttempts: env.int('PROVIDER_MAX_ATTEMPTS', 5, { min: 1, max: 50 }),
    providerRetryBackoffMs: env.int('PROVIDER_RETRY_BACKOFF_MS', 1000, { min: 10, max: 600_000 }),
  };
  env.done('payouts');
  if (!/^https?:\/\/[^/]/.test(config.sandboxProviderUrl) || !URL.canParse(config.sandboxProviderUrl)) {
    throw new ConfigError(
      `payouts: invalid configuration:\n  - SANDBOX_PROVIDER_URL must be an http(s) URL, got "${config.sandboxProviderUrl}"`,
    );
  }
  return config;
}

export const PAYOUTS_CONFIG = Symbol('PAYOUTS_CONFIG');
