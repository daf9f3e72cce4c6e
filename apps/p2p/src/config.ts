import { CommonConfig, ConfigError, EnvReader, readCommonConfig } from '@payments/platform';

export interface P2pConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
  /** Base URL of the sandbox acquirer that P2P transactions are sent to. */
  sandboxProviderUrl: string;
  /** How long one call to the provider may take; past it the transaction's outcome is unknown (need_action). */
  providerTimeoutMs: number;
  /** Sends of a P2P transaction that the provider refused before taking it (down, 5xx), before it fails. */
  providerMaxAttempts: number;
  /** First delay between such sends; doubled each time. */
  providerRetryBackoffMs: number;
}

export function loadP2pConfig(env = new EnvReader()): P2pConfig {
  const config: P2pConfig = {
    ...readCommonConfig(env, 'p2p'),
    schema: env.string('P2P_DB_SCHEMA', 'p2p'),
    consumerGroup: env.string('P2P_CONSUMER_GROUP', 'p2p'),
    sandboxProviderUrl: env.string('SANDBOX_PROVIDER_URL', 'http://127.0.0.1:3002'),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
    providerMaxAttempts: env.int('PROVIDER_MAX_ATTEMPTS', 5, { min: 1, max: 50 }),
    providerRetryBackoffMs: env.int('PROVIDER_RETRY_BACKOFF_MS', 1000, { min: 10, max: 600_000 }),
  };
  env.done('p2p');
  if (!/^https?:\/\/[^/]/.test(config.sandboxProviderUrl) || !URL.canParse(config.sandboxProviderUrl)) {
    throw new ConfigError(
      `p2p: invalid configuration:\n  - SANDBOX_PROVIDER_URL must be an http(s) URL, got "${config.sandboxProviderUrl}"`,
    );
  }
  return config;
}

export const P2P_CONFIG = Symbol('P2P_CONFIG');
