import { readCardVaultConfig, TokenizingCardVaultConfig } from '@payments/card-vault';
import {
  CommonConfig,
  EnvReader,
  FailedAuthThrottleConfig,
  readAuthThrottleConfig,
  readCommonConfig,
  safeInstanceId,
} from '@payments/platform';

export interface GatewayConfig extends CommonConfig {
  schema: string;
  /** Names this instance's reply topic; unique per running instance. */
  instanceId: string;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  rateLimit: { perSecond: number; burst: number };
  /** Failed authentications per client address before 429s. */
  authThrottle: FailedAuthThrottleConfig;
  idempotency: {
    /** Records are kept at least this long (ARCHITECTURE section 3: at least 24 hours). */
    retentionHours: number;
    purgeIntervalMs: number;
    /** How long a duplicate waits for the first request to finish before a 409. */
    waitMs: number;
    /** An in-progress record older than this belongs to a gateway that died; a retry takes it over. */
    staleAfterMs: number;
  };
  /** Local development only: callback URLs may be http and point at private or loopback addresses. */
  callbackUrlAllowInsecure: boolean;
  /** Where a card first arrives, it is tokenized: Kafka commands carry the token, never the number. */
  cardVault: TokenizingCardVaultConfig;
  /** Where payers open hosted pages (apps/checkout): the base of `data.paymentLink`. */
  checkoutPublicUrl: string;
}

export function loadGatewayConfig(env = new EnvReader()): GatewayConfig {
  const common = readCommonConfig(env, 'gateway');
  const config: GatewayConfig = {
    ...common,
    schema: env.string('GATEWAY_DB_SCHEMA', 'gateway'),
    // GATEWAY_INSTANCE_ID: the name it had before every service read INSTANCE_ID.
    instanceId: safeInstanceId(env.string('GATEWAY_INSTANCE_ID', common.instanceId)),
    requestTimeoutMs: env.int('GATEWAY_REQUEST_TIMEOUT_MS', 5000, { min: 100, max: 60000 }),
    bodyLimitBytes: env.int('GATEWAY_BODY_LIMIT_BYTES', 64 * 1024, { min: 1024, max: 16 * 1024 * 1024 }),
    rateLimit: { perSecond: 0, burst: 0 },
    authThrottle: readAuthThrottleConfig(env),
    idempotency: {
      retentionHours: env.int('IDEMPOTENCY_RETENTION_HOURS', 24, { min: 24, max: 24 * 365 }),
      purgeIntervalMs: env.int('IDEMPOTENCY_PURGE_INTERVAL_MS', 15 * 60_000, { min: 0, max: 24 * 3600_000 }),
      waitMs: env.int('IDEMPOTENCY_WAIT_MS', 500, { min: 0, max: 30_000 }),
      staleAfterMs: 0,
    },
    callbackUrlAllowInsecure: env.bool('CALLBACK_URL_ALLOW_INSECURE', false),
    // Tokenizes (decision 112) and derives the payment links' key from the fingerprint key (decision 188).
    cardVault: readCardVaultConfig(env, 'required'),
    checkoutPublicUrl: env.string('CHECKOUT_PUBLIC_URL', 'http://127.0.0.1:3060'),
  };
  const perSecond = env.int('RATE_LIMIT_PER_SECOND', 2000, { min: 1, max: 1_000_000 });
  config.rateLimit = { perSecond, burst: env.int('RATE_LIMIT_BURST', perSecond * 2, { min: 1, max: 10_000_000 }) };
  // Well past the longest a live gateway can hold a request (its reply timeout), so a takeover
  // never races a request that is still running.
  config.idempotency.staleAfterMs = Math.max(30_000, 3 * config.requestTimeoutMs);
  if (!/^https?:\/\/[^/\s]+\/?$|^https?:\/\/[^\s]+$/.test(config.checkoutPublicUrl))
    throw new Error('gateway: CHECKOUT_PUBLIC_URL must be an absolute http(s) URL');
  env.done('gateway');
  return config;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
