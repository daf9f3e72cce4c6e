import { EnvReader } from '@payments/platform';

/** How a service that sends to providers (orders, payouts, P2P) reaches them: one reading for all. */
export interface ProviderConfig {
  /** Base URL of the sandbox acquirer. */
  sandboxProviderUrl: string;
  /** How long one call to the provider may take; past it the outcome is unknown (need_action). */
  providerTimeoutMs: number;
  /** Sends that the provider refused before taking them (down, 5xx), before the payment or transfer fails. */
  providerMaxAttempts: number;
  /** First delay between such sends; doubled each time. */
  providerRetryBackoffMs: number;
}

export function readProviderConfig(env: EnvReader): ProviderConfig {
  return {
    sandboxProviderUrl: env.httpUrl('SANDBOX_PROVIDER_URL', 'http://127.0.0.1:3002'),
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
    providerMaxAttempts: env.int('PROVIDER_MAX_ATTEMPTS', 5, { min: 1, max: 50 }),
    providerRetryBackoffMs: env.int('PROVIDER_RETRY_BACKOFF_MS', 1000, { min: 10, max: 600_000 }),
  };
}
