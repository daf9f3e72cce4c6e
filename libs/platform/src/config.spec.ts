import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, EnvReader, readCommonConfig } from './config';

const base = { DATABASE_URL: 'postgres://db/x', KAFKA_BROKERS: '127.0.0.1:9092' };

describe('the fault-suite failpoint in the common configuration', () => {
  it.each([
    [{}, undefined],
    [{ FAULTS_FAILPOINT: 'none' }, undefined],
    [{ FAULTS_FAILPOINT: 'outbox-after-publish' }, { name: 'outbox-after-publish', afterRows: 0 }],
    [
      { FAULTS_FAILPOINT: 'outbox-after-publish', FAULTS_FAILPOINT_AFTER_ROWS: '40' },
      { name: 'outbox-after-publish', afterRows: 40 },
    ],
  ])('when the environment has %j, then the failpoint is %j', (vars, expected) => {
    const env = new EnvReader({ ...base, ...vars });
    const config = readCommonConfig(env, 'test');
    env.done('test');
    expect(config.failpoint).toEqual(expected);
  });

  it('when FAULTS_FAILPOINT names no known failpoint, then the app refuses to start, naming the variable', () => {
    const env = new EnvReader({ ...base, FAULTS_FAILPOINT: 'outbox-before-publish' });
    readCommonConfig(env, 'test');
    expect(() => env.done('test')).toThrow(ConfigError);
    expect(() => env.done('test')).toThrow(/FAULTS_FAILPOINT must be one of none, outbox-after-publish/);
  });
});

describe("the consumers' offset commit interval in the common configuration", () => {
  it.each([
    [{}, 1000],
    [{ KAFKA_COMMIT_INTERVAL_MS: '0' }, 0],
    [{ KAFKA_COMMIT_INTERVAL_MS: '5000' }, 5000],
  ])('when the environment has %j, then offsets are committed every %d ms', (vars, expected) => {
    const env = new EnvReader({ ...base, ...vars });
    const config = readCommonConfig(env, 'test');
    env.done('test');
    expect(config.kafka.commitIntervalMs).toBe(expected);
  });

  it.each(['-1', 'soon', '600000'])(
    'when KAFKA_COMMIT_INTERVAL_MS is %s, then the app refuses to start, naming the variable',
    (value) => {
      const env = new EnvReader({ ...base, KAFKA_COMMIT_INTERVAL_MS: value });
      readCommonConfig(env, 'test');
      expect(() => env.done('test')).toThrow(/KAFKA_COMMIT_INTERVAL_MS/);
    },
  );
});

describe('the Kafka connection security in the common configuration', () => {
  it('when nothing is set, then the client connects in plain text without SASL (local broker)', () => {
    const env = new EnvReader({ ...base });
    const config = readCommonConfig(env, 'test');
    env.done('test');
    expect(config.kafka.ssl).toBeUndefined();
    expect(config.kafka.sasl).toBeUndefined();
  });

  it('when TLS with a CA file and SCRAM-SHA-512 are set, then the client gets both', () => {
    const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'kafka-ca-')), 'ca.crt');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const env = new EnvReader({
      ...base,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: caFile,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'orders',
      KAFKA_SASL_PASSWORD: 'p4ss',
    });
    const config = readCommonConfig(env, 'test');
    env.done('test');
    expect(config.kafka.ssl).toEqual({ ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] });
    expect(config.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'orders', password: 'p4ss' });
  });

  it.each([
    [{ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SSL: 'true' }, /KAFKA_SASL_USERNAME is required/],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SSL: 'true', KAFKA_SASL_USERNAME: 'u' },
      /KAFKA_SASL_PASSWORD is required/,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SSL: 'true' },
      /KAFKA_SASL_MECHANISM must be one of none, scram-sha-256, scram-sha-512/,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      /KAFKA_SASL_MECHANISM needs KAFKA_SSL=true/,
    ],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/nonexistent/ca.crt' }, /KAFKA_SSL_CA_FILE cannot be read/],
    [{ KAFKA_SSL_CA_FILE: '/nonexistent/ca.crt' }, /KAFKA_SSL_CA_FILE needs KAFKA_SSL=true/],
  ])('when the environment has %j, then the app refuses to start, naming the variable', (vars, message) => {
    const env = new EnvReader({ ...base, ...vars });
    readCommonConfig(env, 'test');
    expect(() => env.done('test')).toThrow(message);
  });
});
