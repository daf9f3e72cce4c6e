import { CommonConfig, ConfigError, EnvReader, readCommonConfig } from '@payments/platform';

export interface OrdersConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
  /** How often the processing-timeout sweeper looks for due orders; 0 turns it off. */
  sweepIntervalMs: number;
  /** Base URL of the sandbox acquirer that payment attempts are sent to. */
  sandboxProviderUrl: string;
  /** How long one call to the provider may take; past it the attempt's outcome is unknown. */
  providerTimeoutMs: number;
  /** Sends of one attempt that the provider refused before taking it (down, 5xx), before the order fails. */
  providerMaxAttempts: number;
  /** First delay between such sends; doubled each time. */
  providerRetryBackoffMs: number;
}

export function loadOrdersConfig(env = new EnvReader()): OrdersConfig {
  const config: OrdersConfig = {
    ...readCommonConfig(env, 'orders'),
    schema: env.string('ORDERS_DB_SCHEMA', 'orders'),
    consumerGroup: env.string('ORDERS_CONSUMER_GROUP', 'orders'),
    sweepIntervalMs: env.int('ORDERS_SWEEP_INTERVAL_MS', 60_000, { min: 0 }),
    sandboxProviderUrl: env.string('SANDBOX_PROVIDER_URL', 'http://127.0.0.1:3002'),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
    providerMaxAttempts: env.int('PROVIDER_MAX_ATTEMPTS', 5, { min: 1, max: 50 }),
    providerRetryBackoffMs: env.int('PROVIDER_RETRY_BACKOFF_MS', 1000, { min: 10, max: 600_000 }),
  };
  env.done('orders');
  if (!/^https?:\/\/[^/]/.test(config.sandboxProviderUrl) || !URL.canParse(config.sandboxProviderUrl)) {
    throw new ConfigError(
      `orders: invalid configuration:\n  - SANDBOX_PROVIDER_URL must be an http(s) URL, got "${config.sandboxProviderUrl}"`,
    );
  }
  return config;
}

export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');
