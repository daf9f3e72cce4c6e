import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';

export interface CallbacksIngestConfig extends CommonConfig {
  schema: string;
  /** Provider code → the secret its callbacks are signed with. */
  providerSecrets: Record<string, string>;
}

/** The documented secret of the local sandbox; never valid outside local runs and tests. */
export const LOCAL_SANDBOX_SECRET = 'sandbox-local-secret';

export function loadCallbacksIngestConfig(env = new EnvReader()): CallbacksIngestConfig {
  const config: CallbacksIngestConfig = {
    ...readCommonConfig(env, 'callbacks-ingest'),
    schema: env.string('CALLBACKS_INGEST_DB_SCHEMA', 'callbacks_ingest'),
    providerSecrets: { sandbox: env.string('SANDBOX_CALLBACK_SECRET', LOCAL_SANDBOX_SECRET) },
  };
  env.done('callbacks-ingest');
  return config;
}

export const CALLBACKS_INGEST_CONFIG = Symbol('CALLBACKS_INGEST_CONFIG');
