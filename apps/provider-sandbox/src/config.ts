import { EnvReader } from '@payments/platform';

export interface SandboxConfig {
  callbacksUrl: string;
  secret: string;
  callbackDelayMs: number;
  /** How long the `.31` scenario holds its answer to a payment request. */
  slowMs: number;
  logFormat: 'pretty' | 'json';
}

export function loadSandboxConfig(env = new EnvReader()): SandboxConfig {
  const config: SandboxConfig = {
    callbacksUrl: env.string('SANDBOX_CALLBACKS_URL', 'http://127.0.0.1:3001/callbacks/sandbox'),
    secret: env.string('SANDBOX_CALLBACK_SECRET', 'sandbox-local-secret'),
    callbackDelayMs: env.int('SANDBOX_CALLBACK_DELAY_MS', 200, { min: 0, max: 600000 }),
    slowMs: env.int('SANDBOX_SLOW_MS', 15000, { min: 0, max: 600000 }),
    logFormat: env.oneOf('LOG_FORMAT', ['pretty', 'json'] as const, 'pretty'),
  };
  env.done('provider-sandbox');
  return config;
}

export const SANDBOX_CONFIG = Symbol('SANDBOX_CONFIG');
