import { Logger } from '@nestjs/common';
import { Kafka, logLevel, LogEntry, Partitioners, ProducerConfig } from 'kafkajs';
import type { KafkaConfig } from '@payments/platform';

const toNest = (level: logLevel) => (entry: LogEntry) => {
  const logger = new Logger(`kafkajs:${entry.namespace}`);
  const { message, ...rest } = entry.log;
  const extra = Object.keys(rest).length > 2 ? ` ${JSON.stringify({ ...rest, timestamp: undefined, logger: undefined })}` : '';
  if (level <= logLevel.ERROR) logger.error(`${message}${extra}`);
  else logger.warn(`${message}${extra}`);
};

export function createKafka(config: KafkaConfig, clientIdSuffix = ''): Kafka {
  return new Kafka({
    clientId: config.clientId + clientIdSuffix,
    brokers: config.brokers,
    logLevel: logLevel.WARN,
    logCreator: toNest,
    // A broker restart must not take the service down: keep trying to reconnect.
    retry: { initialRetryTime: 200, retries: 15, maxRetryTime: 5000 },
    connectionTimeout: 3000,
  });
}

export function prefixed(config: KafkaConfig, topic: string): string {
  return config.topicPrefix + topic;
}

/** Removes the test prefix, so handlers and DLQ records name the contract topic. */
export function unprefixed(config: KafkaConfig, topic: string): string {
  return config.topicPrefix && topic.startsWith(config.topicPrefix) ? topic.slice(config.topicPrefix.length) : topic;
}

/**
 * The producer every service uses: idempotent (no duplicates from its own retries), acks from all
 * replicas, the Java client's partitioner (so keys land where other clients put them too), and
 * retries without end — a broker outage blocks publishing until the broker is back, it never
 * drops a message.
 */
export function producerConfig(extra: Partial<ProducerConfig> = {}): ProducerConfig {
  return {
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5000 },
    ...extra,
  };
}
