import {
  CommonConfig,
  EnvReader,
  FailedAuthThrottleConfig,
  readAuthThrottleConfig,
  readCommonConfig,
} from '@payments/platform';
import { ClickShop, parseClickSecretKeys, parseClickShops } from '@payments/providers/click';
import { parsePaymeConfig, PaymeShop } from '@payments/providers/payme';
import { PUBLIC_SANDBOX_SECRETS } from '@payments/providers/sandbox';
import { SANDBOX_B_PROVIDER_CODE } from '@payments/providers/sandbox-b';

export interface CallbacksIngestConfig extends CommonConfig {
  schema: string;
  /** Provider code → the secret its callbacks are signed with. */
  providerSecrets: Record<string, string>;
  /** Callbacks with a bad signature per client address before 429s, and their aggregated log lines. */
  authThrottle: FailedAuthThrottleConfig;
  /** Shops that take Click, with their Click accounts, and each service's SECRET_KEY (a secret). */
  click: ClickConfig;
  /** Payme cashboxes of shops (`PAYME_SHOPS`) and their keys (`PAYME_KEYS`, secrets). */
  payme: { shops: PaymeShop[]; keys: Record<string, string> };
}

export interface ClickConfig {
  shops: ClickShop[];
  secretKeys: Record<string, string>;
  /** How long a Prepare or Complete waits for the order's answer (Click waits for ours). */
  orderTimeoutMs: number;
}

/** `CLICK_SHOPS` and `CLICK_SECRET_KEYS` (JSON; both empty when Click is not used); a bad one names the entry. */
export function readClickConfig(env: EnvReader): Omit<ClickConfig, 'orderTimeoutMs'> {
  const shops = parseClickShops(env.string('CLICK_SHOPS', '[]'));
  if (!shops.ok) env.fail(`CLICK_SHOPS ${shops.error}`);
  const keys = parseClickSecretKeys(env.string('CLICK_SECRET_KEYS', '{}'));
  if (!keys.ok) env.fail(`CLICK_SECRET_KEYS ${keys.error}`);
  const value = { shops: shops.ok ? shops.value : [], secretKeys: keys.ok ? keys.value : {} };
  for (const s of value.shops)
    if (!value.secretKeys[s.serviceId])
      env.fail(`CLICK_SECRET_KEYS has no key for service ${s.serviceId} of CLICK_SHOPS`);
  return value;
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
    click: {
      ...readClickConfig(env),
      orderTimeoutMs: env.int('CLICK_ORDER_TIMEOUT_MS', 5000, { min: 100, max: 60000 }),
    },
    payme: { shops: [], keys: {} },
  };
  const payme = parsePaymeConfig(env.string('PAYME_SHOPS', '[]'), env.string('PAYME_KEYS', '{}'));
  if (payme.ok) config.payme = { shops: payme.shops, keys: payme.keys };
  else env.fail(payme.error);
  env.done('callbacks-ingest');
  return config;
}

export const CALLBACKS_INGEST_CONFIG = Symbol('CALLBACKS_INGEST_CONFIG');
