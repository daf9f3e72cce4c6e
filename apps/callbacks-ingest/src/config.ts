import {
  CommonConfig,
  EnvReader,
  FailedAuthThrottleConfig,
  readAuthThrottleConfig,
  readCommonConfig,
} from '@payments/platform';
import { PUBLIC_SANDBOX_SECRETS } from '@payments/providers/sandbox';

export interface CallbacksIngestConfig extends CommonConfig {
  schema: string;
  /** Provider code → the secret its callbacks are signed with. */
  providerSecrets: Record<string, string>;
  /** Callbacks with a bad signature per client address before 429s, and their aggregated log lines. */
  authThrottle: FailedAuthThrottleConfig;
}

export function loadCallbacksIngestConfig(env = new EnvReader()): CallbacksIngestConfig {
  const config: CallbacksIngestConfig = {
    ...readCommonConfig(env, 'callbacks-ingest'),
    schema: env.string('CALLBACKS_INGEST_DB_SCHEMA', 'callbacks_ingest'),
    authThrottle: readAuthThrottleConfig(env),
    providerSecrets: { sandbox: env.secret('SANDBOX_CALLBACK_SECRET', PUBLIC_SANDBOX_SECRETS) },
  };
  env.done('callbacks-ingest');
  return config;
}

export const CALLBACKS_INGEST_CONFIG = Symbol('CALLBACKS_INGEST_CONFIG');
