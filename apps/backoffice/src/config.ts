import { CardVaultConfig, readCardVaultConfig } from '@payments/card-vault';
import { MerchantAdminConfig } from '@payments/merchant-admin';
import { DEFAULT_CONSUMER_GROUPS } from '@payments/messaging';
import {
  CommonConfig,
  EnvReader,
  FailedAuthThrottleConfig,
  readAuthThrottleConfig,
  readCommonConfig,
  safeInstanceId,
} from '@payments/platform';
import { ReconciliationConfig, readReconciliationConfig } from './reconciliation/reconciliation.config';

export interface BackofficeConfig extends CommonConfig {
  /** The backoffice's own tables: operators, sessions, the audit log, dead letters, reconciliation. */
  schema: string;
  /**
   * The gateway's schema: companies, shops, API keys and idempotency records, which operators
   * administer (an interim step, decision 300).
   */
  gatewaySchema: string;
  /** Names this instance's health group and request-reply instance; unique per running instance. */
  instanceId: string;
  requestTimeoutMs: number;
  opsToken: string;
  /** Failed operator authentications per client address before 429s. */
  authThrottle: FailedAuthThrottleConfig;
  /** Local development only: callback URLs may be http and point at private or loopback addresses. */
  callbackUrlAllowInsecure: boolean;
  /** How often the elected Kafka collector reads consumer offsets and high watermarks for /metrics. */
  kafkaMetricsIntervalMs: number;
  /** The consumer groups whose lag the collector exports (the services' *_CONSUMER_GROUP). */
  kafkaMetricsGroups: string[];
  /** The checks across services' tables (issue 17 item 4, decision 106). */
  reconciliation: ReconciliationConfig;
  /**
   * Erases cards and seals shops' callback secrets: the encryption keys, never the fingerprint key
   * (decision 259: it stays where cards are tokenized, so the operators' order view has no payment link).
   */
  cardVault: CardVaultConfig;
}

export function loadBackofficeConfig(env = new EnvReader()): BackofficeConfig {
  const common = readCommonConfig(env, 'backoffice');
  const config: BackofficeConfig = {
    ...common,
    schema: env.string('BACKOFFICE_DB_SCHEMA', 'backoffice'),
    gatewaySchema: env.string('GATEWAY_DB_SCHEMA', 'gateway'),
    instanceId: safeInstanceId(common.instanceId),
    requestTimeoutMs: env.int('BACKOFFICE_REQUEST_TIMEOUT_MS', 5000, { min: 100, max: 60000 }),
    opsToken: env.string('OPS_TOKEN'),
    authThrottle: readAuthThrottleConfig(env),
    callbackUrlAllowInsecure: env.bool('CALLBACK_URL_ALLOW_INSECURE', false),
    kafkaMetricsIntervalMs: env.int('KAFKA_METRICS_INTERVAL_MS', 5000, { min: 200, max: 60_000 }),
    kafkaMetricsGroups: env
      .string('KAFKA_METRICS_GROUPS', DEFAULT_CONSUMER_GROUPS.join(','))
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean),
    reconciliation: readReconciliationConfig(env, common.databaseUrl),
    cardVault: readCardVaultConfig(env, 'none'),
  };
  if (config.opsToken && config.opsToken.length < 16)
    throw new Error('backoffice: OPS_TOKEN must have at least 16 characters');
  env.done('backoffice');
  return config;
}

/** What the shared merchant administration code reads: the gateway's schema (decision 300). */
export function merchantAdminConfigOf(config: BackofficeConfig): MerchantAdminConfig {
  return {
    schema: config.gatewaySchema,
    callbackUrlAllowInsecure: config.callbackUrlAllowInsecure,
    cardVault: config.cardVault,
    checkoutPublicUrl: '',
    // Only the gateway takes idempotency records over; the backoffice only erases card tokens from them.
    idempotency: { staleAfterMs: 30_000 },
  };
}

export const BACKOFFICE_CONFIG = Symbol('BACKOFFICE_CONFIG');
