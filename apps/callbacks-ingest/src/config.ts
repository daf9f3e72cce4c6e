import {
  CommonConfig,
  EnvReader,
  FailedAuthThrottleConfig,
  readAuthThrottleConfig,
  readCommonConfig,
} from '@payments/platform';
import { KeyRing, readSecretKeys } from '@payments/card-vault';
import { PUBLIC_SANDBOX_SECRETS } from '@payments/providers/sandbox';
import { SANDBOX_B_PROVIDER_CODE } from '@payments/providers/sandbox-b';

export interface CallbacksIngestConfig extends CommonConfig {
  schema: string;
  /** Provider code → the secret its callbacks are signed with. */
  providerSecrets: Record<string, string>;
  /** Callbacks with a bad signature per client address before 429s, and their aggregated log lines. */
  authThrottle: FailedAuthThrottleConfig;
  /** Click and Payme: how long a call waits for the order's answer (they wait for ours). */
  click: ClickConfig;
  /**
   * CARD_VAULT_KEYS: shops' Click and Payme secrets arrive sealed on `shops.settings` and are kept
   * sealed; each call opens the one it is checked with (decision 341).
   */
  secretKeys: KeyRing;
  /** The consumer group of `shops.settings`, where the shops' provider accounts come from. */
  consumerGroup: string;
}

export interface ClickConfig {
  /** How long a Prepare or Complete waits for the order's answer (Click waits for ours). */
  orderTimeoutMs: number;
}

/**
 * The sandbox acquirers' callback secrets: the sandbox's, and the second acquirer's (decision
 * 323), which the same simulator signs with the same secret unless SANDBOX_B_CALLBACK_SECRET says otherwise.
 */
function sandboxSecrets(env: EnvReader): Record<string, string> {
  const sandbox = env.secret('SANDBOX_CALLBACK_SECRET', PUBLIC_SANDBOX_SECRETS);
  const b = env.optionalString('SANDBOX_B_CALLBACK_SECRET') ?? sandbox;
  if (PUBLIC_SANDBOX_SECRETS.includes(b)) env.fail('SANDBOX_B_CALLBACK_SECRET must not be a public value');
  return { sandbox, [SANDBOX_B_PROVIDER_CODE]: b };
}

export function loadCallbacksIngestConfig(env = new EnvReader()): CallbacksIngestConfig {
  const config: CallbacksIngestConfig = {
    ...readCommonConfig(env, 'callbacks-ingest'),
    schema: env.string('CALLBACKS_INGEST_DB_SCHEMA', 'callbacks_ingest'),
    authThrottle: readAuthThrottleConfig(env),
    providerSecrets: sandboxSecrets(env),
    click: { orderTimeoutMs: env.int('CLICK_ORDER_TIMEOUT_MS', 5000, { min: 100, max: 60000 }) },
    secretKeys: readSecretKeys(env),
    consumerGroup: env.string('CALLBACKS_INGEST_CONSUMER_GROUP', 'callbacks-ingest'),
  };
  // Shops' Click and Payme accounts are operator settings now (decision 341): a deployment that
  // still gives them here is told so rather than silently ignored.
  for (const name of ['CLICK_SHOPS', 'CLICK_SECRET_KEYS', 'PAYME_SHOPS', 'PAYME_KEYS'])
    if (env.optionalString(name) !== undefined)
      env.fail(`${name} is no longer read: set each shop's account with PUT /ops/v1/shops/{id}/providers/{provider}`);
  env.done('callbacks-ingest');
  return config;
}

export const CALLBACKS_INGEST_CONFIG = Symbol('CALLBACKS_INGEST_CONFIG');
