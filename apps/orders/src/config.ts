import { CardVaultConfig, readCardVaultConfig } from '@payments/card-vault';
import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';
import { ProviderConfig, readProviderConfig } from '@payments/provider-dispatch';

export interface OrdersConfig extends CommonConfig, ProviderConfig {
  schema: string;
  consumerGroup: string;
  /** How often the processing-timeout sweeper looks for due orders; 0 turns it off. */
  sweepIntervalMs: number;
  /** How long a shop's settings read from the database are used again (0: read every time); decision 238. */
  settingsCacheMs: number;
  /** A card typed on a hosted page is a vault token here; the dispatcher opens it just before the send. */
  cardVault: CardVaultConfig;
  /**
   * Whether a refund asks the ledger for its hold before it is accepted (LEDGER_HOLDS, default
   * true; decision 276). Off only where no ledger runs: test stacks and tools without it.
   */
  ledgerHolds: boolean;
  /** How long a refund waits for the ledger's hold. */
  ledgerTimeoutMs: number;
  /** Base URL of the second sandbox card acquirer, `sandbox-b` (decision 323); beside the sandbox by default. */
  sandboxBProviderUrl: string;
}

export function loadOrdersConfig(env = new EnvReader()): OrdersConfig {
  const providers = readProviderConfig(env);
  const config: OrdersConfig = {
    ...readCommonConfig(env, 'orders'),
    schema: env.string('ORDERS_DB_SCHEMA', 'orders'),
    consumerGroup: env.string('ORDERS_CONSUMER_GROUP', 'orders'),
    sweepIntervalMs: env.int('ORDERS_SWEEP_INTERVAL_MS', 60_000, { min: 0 }),
    settingsCacheMs: env.int('ORDERS_SHOP_SETTINGS_CACHE_MS', 1000, { min: 0, max: 60_000 }),
    ...providers,
    sandboxBProviderUrl: env.httpUrl(
      'SANDBOX_B_PROVIDER_URL',
      `${providers.sandboxProviderUrl.replace(/\/+$/, '')}/sandbox-b`,
    ),
    // Opens a card just before a provider call; never tokenizes (decision 259).
    cardVault: readCardVaultConfig(env, 'none'),
    ledgerHolds: env.bool('LEDGER_HOLDS', true),
    ledgerTimeoutMs: env.int('LEDGER_REQUEST_TIMEOUT_MS', 4000, { min: 100, max: 60_000 }),
  };
  env.done('orders');
  return config;
}

export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');
