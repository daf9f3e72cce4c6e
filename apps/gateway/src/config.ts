import { hostname } from 'node:os';
import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';

export interface GatewayConfig extends CommonConfig {
  schema: string;
  /** Names this instance's reply topic; unique per running instance. */
  instanceId: string;
  requestTimeoutMs: number;
  opsToken: string;
  /** Local development only: callback URLs may be http and point at private or loopback addresses. */
  callbackUrlAllowInsecure: boolean;
}

export function loadGatewayConfig(env = new EnvReader()): GatewayConfig {
  const config: GatewayConfig = {
    ...readCommonConfig(env, 'gateway'),
    schema: env.string('GATEWAY_DB_SCHEMA', 'gateway'),
    instanceId: env.string('GATEWAY_INSTANCE_ID', `${hostname()}-${process.pid}`).replace(/[^a-zA-Z0-9._-]/g, '-'),
    requestTimeoutMs: env.int('GATEWAY_REQUEST_TIMEOUT_MS', 5000, { min: 100, max: 60000 }),
    opsToken: env.string('OPS_TOKEN'),
    callbackUrlAllowInsecure: env.bool('CALLBACK_URL_ALLOW_INSECURE', false),
  };
  if (config.opsToken && config.opsToken.length < 16) throw new Error('gateway: OPS_TOKEN must have at least 16 characters');
  env.done('gateway');
  return config;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
