import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import type { FailedAuthThrottleConfig } from './failed-auth-throttle';

/**
 * Configuration is read once per app at boot from the environment, validated, and injected.
 * A missing or malformed variable stops the app with a message naming it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** A reader that sees `defaults` where this one has no value (tests and tools). */
  withDefaults(defaults: Record<string, string>): EnvReader {
    return new EnvReader({ ...defaults, ...this.env });
  }

  string(name: string, fallback?: string): string {
    const v = this.env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  /**
   * A required secret. Values that were ever published (documentation, an old default) are refused:
   * anyone could sign or authenticate with them.
   */
  secret(name: string, publicValues: readonly string[] = []): string {
    const v = this.string(name);
    if (publicValues.includes(v))
      this.problems.push(`${name} must not be the public value "${v}": set a long random secret`);
    return v;
  }

  optionalString(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  int(name: string, fallback: number, opts: { min?: number; max?: number } = {}): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n)) {
      this.problems.push(`${name} must be an integer, got "${raw}"`);
      return fallback;
    }
    if ((opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
      this.problems.push(`${name} must be between ${opts.min ?? '-∞'} and ${opts.max ?? '∞'}, got ${n}`);
    }
    return n;
  }

  /** An absolute http(s) URL. */
  httpUrl(name: string, fallback: string): string {
    const v = this.string(name, fallback);
    if (!/^https?:\/\/[^/]/.test(v) || !URL.canParse(v))
      this.problems.push(`${name} must be an http(s) URL, got "${v}"`);
    return v;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return fallback;
  }

  /** A problem only the caller can see (two variables that contradict each other, an unreadable file). */
  fail(message: string): void {
    this.problems.push(message);
  }

  /** A value whose format only its reader knows: parsed there, its problem reported with the others. */
  parsed<T>(name: string, parse: (raw: string) => { value: T } | { problem: string }): T | undefined {
    const raw = this.env[name];
    if (raw === undefined || raw === '') {
      this.problems.push(`${name} is required`);
      return undefined;
    }
    const result = parse(raw);
    if ('problem' in result) {
      this.problems.push(`${name} ${result.problem}`);
      return undefined;
    }
    return result.value;
  }

  /** Throws one error listing every problem found, so a bad deployment is fixed in one go. */
  done(app: string): void {
    if (this.problems.length > 0) {
      throw new ConfigError(`${app}: invalid configuration:\n  - ${this.problems.join('\n  - ')}`);
    }
  }
}

export interface KafkaConfig {
  brokers: string[];
  clientId: string;
  /** Prepended to every topic name; empty in production, unique per test suite. */
  topicPrefix: string;
  /** Replication factor of topics a service creates itself (the gateway's reply topic). */
  replicationFactor: number;
  /** kafkajs logs nothing below this (LOG_LEVEL); `info` where not given. */
  logLevel?: LogLevelName;
  /**
   * How long a consumer's finished offsets may wait before they are committed
   * (KAFKA_COMMIT_INTERVAL_MS; 1000 where not given, 0 = after every batch).
   */
  commitIntervalMs?: number;
  /**
   * How often a client refreshes the metadata of the topics it uses (KAFKA_METADATA_MAX_AGE_MS;
   * kafkajs's 5 minutes where not given). The fault suite shortens it to get past a refresh.
   */
  metadataMaxAgeMs?: number;
  /** How long one reply's send may take before it is given up (KAFKA_REPLY_SEND_TIMEOUT_MS). */
  replySendTimeoutMs?: number;
  /** TLS to the brokers (KAFKA_SSL), trusting KAFKA_SSL_CA_FILE's certificates where given. */
  ssl?: { ca?: string[] };
  /** SASL/SCRAM credentials of this service's Kafka user (KAFKA_SASL_*); only over TLS. */
  sasl?: { mechanism: KafkaSaslMechanism; username: string; password: string };
}

export const KAFKA_SASL_MECHANISMS = ['scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/**
 * How a service authenticates to Kafka and protects the connection. Plain text without SASL where
 * nothing is set (the local broker of `npm start` and the tests); in a cluster TLS and a SCRAM user
 * per service (k8s/infra/kafka-users.yaml). SASL is refused without TLS: the password would not
 * leak (SCRAM), but every message would still cross the network in clear.
 */
function readKafkaSecurity(env: EnvReader): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const ssl = env.bool('KAFKA_SSL', false);
  const caFile = env.optionalString('KAFKA_SSL_CA_FILE');
  const mechanism = env.oneOf('KAFKA_SASL_MECHANISM', ['none', ...KAFKA_SASL_MECHANISMS] as const, 'none');
  let ca: string[] | undefined;
  if (caFile !== undefined && !ssl) env.fail('KAFKA_SSL_CA_FILE needs KAFKA_SSL=true');
  else if (caFile !== undefined) {
    try {
      ca = [readFileSync(caFile, 'utf8')];
    } catch (e) {
      env.fail(`KAFKA_SSL_CA_FILE cannot be read: ${(e as Error).message}`);
    }
  }
  let sasl: KafkaConfig['sasl'];
  if (mechanism !== 'none') {
    if (!ssl) env.fail('KAFKA_SASL_MECHANISM needs KAFKA_SSL=true');
    sasl = { mechanism, username: env.string('KAFKA_SASL_USERNAME'), password: env.string('KAFKA_SASL_PASSWORD') };
  }
  return { ...(ssl ? { ssl: ca ? { ca } : {} } : {}), ...(sasl ? { sasl } : {}) };
}

/** LOG_LEVEL: what a service logs, from the most to the least: `debug` also shows framework detail. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
export type LogFormat = 'pretty' | 'json';

export interface LogConfig {
  /** LOG_LEVEL, `info` by default (tests run at `warn`). */
  logLevel: LogLevelName;
  /** LOG_FORMAT: `pretty` lines for people, or `json` (one pino object a line) for log shippers. */
  logFormat: LogFormat;
}

/** The logging settings of every service, the sandbox included (it has no database or broker). */
export function readLogConfig(env: EnvReader): LogConfig {
  return {
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: env.oneOf('LOG_FORMAT', ['pretty', 'json'] as const, 'pretty'),
  };
}

/**
 * A crash the fault suite (tools/faults) asks a process to inflict on itself at one exact point.
 * Off unless FAULTS_FAILPOINT is set; never set in production.
 *   outbox-after-publish: the outbox relay SIGKILLs its own process after the broker acknowledged
 *   a batch and before the batch's rows are marked published, once `afterRows` rows went out.
 */
export interface Failpoint {
  name: 'outbox-after-publish';
  afterRows: number;
}

/** The failed-authentication throttle of a listener that checks credentials (FailedAuthThrottle). */
export function readAuthThrottleConfig(env: EnvReader): FailedAuthThrottleConfig {
  return {
    burst: env.int('AUTH_FAILURES_BURST', 20, { min: 1, max: 1_000_000 }),
    perMinute: env.int('AUTH_FAILURES_PER_MINUTE', 10, { min: 1, max: 1_000_000 }),
    logIntervalMs: env.int('AUTH_FAILURES_LOG_INTERVAL_MS', 60_000, { min: 1000, max: 3_600_000 }),
  };
}

export interface HealthConfig {
  /**
   * How long a consumer may go without a heartbeat or fetch, or a send wait for the broker, before
   * the service is not ready (HEALTH_STALL_MS).
   */
  stallMs: number;
  /** How long a broker-side component may stay not ready, the broker answering, before liveness fails (HEALTH_LIVENESS_GRACE_MS). */
  livenessGraceMs: number;
  /** How often an instance reports its health to `services.health` for the console (HEALTH_REPORT_INTERVAL_MS). */
  reportIntervalMs: number;
}

export interface CommonConfig extends LogConfig {
  /**
   * This process among the service's instances (INSTANCE_ID; the pod name in k8s, else host and
   * pid): names its own consumer groups and its health reports.
   */
  instanceId: string;
  databaseUrl: string;
  kafka: KafkaConfig;
  /** Off (METRICS_ENABLED=false) only to measure what collecting metrics costs (npm run bench). */
  metricsEnabled: boolean;
  health: HealthConfig;
  failpoint?: Failpoint;
}

/** An id safe in a topic, group or client name. */
export function safeInstanceId(id: string): string {
  return id.replace(/[^a-zA-Z0-9._-]/g, '-');
}

export function readCommonConfig(env: EnvReader, clientId: string): CommonConfig {
  const log = readLogConfig(env);
  return {
    ...log,
    instanceId: safeInstanceId(env.string('INSTANCE_ID', `${hostname()}-${process.pid}`)),
    databaseUrl: env.string('DATABASE_URL'),
    kafka: {
      brokers: env
        .string('KAFKA_BROKERS')
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
      clientId: env.string('KAFKA_CLIENT_ID', clientId),
      topicPrefix: env.string('KAFKA_TOPIC_PREFIX', ''),
      replicationFactor: env.int('KAFKA_REPLICATION_FACTOR', 1, { min: 1, max: 10 }),
      logLevel: log.logLevel,
      commitIntervalMs: env.int('KAFKA_COMMIT_INTERVAL_MS', 1000, { min: 0, max: 60_000 }),
      metadataMaxAgeMs: env.int('KAFKA_METADATA_MAX_AGE_MS', 300_000, { min: 1000, max: 3_600_000 }),
      replySendTimeoutMs: env.int('KAFKA_REPLY_SEND_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
      ...readKafkaSecurity(env),
    },
    metricsEnabled: env.bool('METRICS_ENABLED', true),
    health: {
      stallMs: env.int('HEALTH_STALL_MS', 15_000, { min: 1000, max: 600_000 }),
      livenessGraceMs: env.int('HEALTH_LIVENESS_GRACE_MS', 120_000, { min: 1000, max: 3_600_000 }),
      reportIntervalMs: env.int('HEALTH_REPORT_INTERVAL_MS', 10_000, { min: 500, max: 600_000 }),
    },
    failpoint: readFailpoint(env),
  };
}

function readFailpoint(env: EnvReader): Failpoint | undefined {
  const name = env.oneOf('FAULTS_FAILPOINT', ['none', 'outbox-after-publish'] as const, 'none');
  const afterRows = env.int('FAULTS_FAILPOINT_AFTER_ROWS', 0, { min: 0 });
  return name === 'none' ? undefined : { name, afterRows };
}
