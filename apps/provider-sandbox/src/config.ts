import { EnvReader, LogConfig, readLogConfig } from '@payments/platform';
import { PUBLIC_SANDBOX_SECRETS } from '@payments/providers/sandbox';

export interface SandboxConfig extends LogConfig {
  callbacksUrl: string;
  secret: string;
  callbackDelayMs: number;
  /** How long the `.31` scenario holds its answer to a payment request. */
  slowMs: number;
  metricsEnabled: boolean;
}

export function loadSandboxConfig(env = new EnvReader()): SandboxConfig {
  const config: SandboxConfig = {
    callbacksUrl: env.string('SANDBOX_CALLBACKS_URL', 'http://127.0.0.1:3001/callbacks/sandbox'),
    secret: env.secret('SANDBOX_CALLBACK_SECRET', PUBLIC_SANDBOX_SECRETS),
    callbackDelayMs: env.int('SANDBOX_CALLBACK_DELAY_MS', 200, { min: 0, max: 600000 }),
    slowMs: env.int('SANDBOX_SLOW_MS', 15000, { min: 0, max: 600000 }),
    ...readLogConfig(env),
    metricsEnabled: env.bool('METRICS_ENABLED', true),
  };
  env.done('provider-sandbox');
  return config;
}

export const SANDBOX_CONFIG = Symbol('SANDBOX_CONFIG');
