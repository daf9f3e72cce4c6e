import { Logger } from '@nestjs/common';
import { logLevel } from 'kafkajs';
import type { KafkaConfig, LogLevelName } from '@payments/platform';
import { consumerConfig, kafkaClientOptions, producerConfig } from './kafka';

const base: KafkaConfig = { brokers: ['b:9093'], clientId: 'orders', topicPrefix: '', replicationFactor: 1 };

describe('the kafkajs options of a service', () => {
  it('when no TLS or SASL is configured, then the client has neither', () => {
    const options = kafkaClientOptions(base);
    expect(options.ssl).toBeUndefined();
    expect(options.sasl).toBeUndefined();
  });

  it('when TLS with a CA and SCRAM are configured, then the client verifies the brokers against that CA and logs in', () => {
    const options = kafkaClientOptions({
      ...base,
      ssl: { ca: ['PEM'] },
      sasl: { mechanism: 'scram-sha-512', username: 'orders', password: 'p' },
    });
    expect(options.ssl).toEqual({ ca: ['PEM'], rejectUnauthorized: true });
    expect(options.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'orders', password: 'p' });
  });

  it('when TLS without a CA is configured, then the system trust store is used', () => {
    expect(kafkaClientOptions({ ...base, ssl: {} }).ssl).toBe(true);
  });
});

describe('the kafkajs options of a consumer', () => {
  it('when a consumer is configured, then a fetch brings at most 256 KiB per partition and 2 MiB in all', () => {
    // kafkajs's defaults are 1 MiB and 10 MiB, held in memory until the batch is handled.
    const config = consumerConfig({ ...base, metadataMaxAgeMs: 10_000 }, { groupId: 'orders', sessionTimeout: 10_000 });
    expect(config).toEqual({
      groupId: 'orders',
      sessionTimeout: 10_000,
      metadataMaxAge: 10_000,
      maxBytesPerPartition: 256 * 1024,
      maxBytes: 2 * 1024 * 1024,
    });
  });

  it('when a consumer asks for bigger fetches, then the limits still hold', () => {
    const config = consumerConfig(
      { ...base, metadataMaxAgeMs: 10_000 },
      { groupId: 'orders', maxBytes: 10 * 1024 * 1024, maxBytesPerPartition: 1024 * 1024 },
    );
    expect(config.maxBytes).toBe(2 * 1024 * 1024);
    expect(config.maxBytesPerPartition).toBe(256 * 1024);
  });
});

describe('the metadata refresh of a client', () => {
  it('when KAFKA_METADATA_MAX_AGE_MS is set, then producers and consumers refresh topic metadata that often', () => {
    const kafka = { ...base, metadataMaxAgeMs: 10_000 };
    expect(producerConfig(kafka).metadataMaxAge).toBe(10_000);
    expect(consumerConfig(kafka, { groupId: 'g' }).metadataMaxAge).toBe(10_000);
  });
});

describe("kafkajs's lines", () => {
  /** What a client at this LOG_LEVEL writes of one kafkajs line, by Nest level. */
  function written(level: LogLevelName, namespace: string, entryLevel: logLevel): string[] {
    const out: string[] = [];
    const spies = (['error', 'warn', 'log', 'debug'] as const).map((m) =>
      jest
        .spyOn(Logger.prototype, m)
        .mockImplementation((...args: unknown[]) => void out.push(`${m}: ${String(args[0])}`)),
    );
    try {
      const options = kafkaClientOptions({ ...base, logLevel: level });
      options.logCreator!(options.logLevel!)({
        namespace,
        level: entryLevel,
        label: 'ERROR',
        log: { message: 'Response Produce(key: 0, version: 7)', timestamp: '', logger: 'kafkajs' },
      });
    } finally {
      for (const s of spies) s.mockRestore();
    }
    return out;
  }

  it.each(['info', 'warn', 'error'] as const)(
    "when LOG_LEVEL is %s, then a failed request kafkajs retries (its Connection lines, debug) is not written, even by Nest's logger of no app",
    (level) => {
      expect(written(level, 'Connection', logLevel.ERROR)).toEqual([]);
    },
  );

  it('when LOG_LEVEL is debug, then it is written as debug; and an error of another namespace is an error at any level', () => {
    expect(written('debug', 'Connection', logLevel.ERROR)).toEqual(['debug: Response Produce(key: 0, version: 7)']);
    expect(written('warn', 'Producer', logLevel.ERROR)).toEqual(['error: Response Produce(key: 0, version: 7)']);
  });
});
