import { Logger } from '@nestjs/common';
import {
  Admin,
  ConsumerConfig,
  ITopicConfig,
  Kafka,
  KafkaConfig as KafkaJsConfig,
  logLevel,
  LogEntry,
  Message,
  Partitioners,
  ProducerConfig,
  SASLOptions,
  TopicMessages,
} from 'kafkajs';
import type { KafkaConfig, LogLevelName } from '@payments/platform';
import { fixKafkajsRequestQueue } from './kafkajs-request-queue';

// Before any client connects: kafkajs's request queues otherwise wake every millisecond, forever.
fixKafkajsRequestQueue();

/**
 * kafkajs's lines through Nest's logger, at the level of each line. A failed response to one
 * request (namespace Connection: a rebalance, a topic that already exists) is kafkajs's detail:
 * it retries, and what still fails is thrown to our code, which logs it. So those are debug, and
 * written only at LOG_LEVEL=debug: Nest's logger of a client with no app around it (a spec's
 * harness) shows debug lines whatever the LOG_LEVEL (decision 346).
 */
const toNest = (quiet: readonly string[], shown: LogLevelName) => () => (entry: LogEntry) => {
  const level = entry.namespace === 'Connection' || quiet.includes(entry.namespace) ? logLevel.DEBUG : entry.level;
  if (level === logLevel.DEBUG && shown !== 'debug') return;
  const logger = new Logger(`kafkajs:${entry.namespace}`);
  const { message, ...rest } = entry.log;
  const extra =
    Object.keys(rest).length > 2 ? ` ${JSON.stringify({ ...rest, timestamp: undefined, logger: undefined })}` : '';
  if (level <= logLevel.ERROR) logger.error(`${message}${extra}`);
  else if (level === logLevel.WARN) logger.warn(`${message}${extra}`);
  else if (level === logLevel.INFO) logger.log(`${message}${extra}`);
  else logger.debug(`${message}${extra}`);
};

/**
 * kafkajs's own level for a LOG_LEVEL. Its `info` lines (every join, rebalance and commit) are
 * framework detail, shown from `debug` on; its `debug` (every request) never.
 */
const KAFKAJS_LEVEL: Record<LogLevelName, logLevel> = {
  debug: logLevel.INFO,
  info: logLevel.WARN,
  warn: logLevel.WARN,
  error: logLevel.ERROR,
  silent: logLevel.NOTHING,
};

/**
 * The kafkajs options of a service's client, TLS and SASL/SCRAM included where configured.
 * `quiet`: kafkajs namespaces whose lines go to debug, where our code reports the outcome itself
 * (a reply producer's failed sends: ReplySender logs each drop).
 */
export function kafkaClientOptions(
  config: KafkaConfig,
  clientIdSuffix = '',
  quiet: readonly string[] = [],
): KafkaJsConfig {
  return {
    clientId: config.clientId + clientIdSuffix,
    brokers: config.brokers,
    ...(config.ssl ? { ssl: config.ssl.ca ? { ca: config.ssl.ca, rejectUnauthorized: true } : true } : {}),
    ...(config.sasl ? { sasl: config.sasl as SASLOptions } : {}),
    logLevel: KAFKAJS_LEVEL[config.logLevel ?? 'info'],
    logCreator: toNest(quiet, config.logLevel ?? 'info'),
    // A broker restart must not take the service down: keep trying to reconnect.
    retry: { initialRetryTime: 200, retries: 15, maxRetryTime: 5000 },
    connectionTimeout: 3000,
  };
}

export function createKafka(config: KafkaConfig, clientIdSuffix = '', quiet: readonly string[] = []): Kafka {
  return new Kafka(kafkaClientOptions(config, clientIdSuffix, quiet));
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
export function producerConfig(kafka: KafkaConfig, extra: Partial<ProducerConfig> = {}): ProducerConfig {
  return {
    metadataMaxAge: kafka.metadataMaxAgeMs,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5000 },
    ...extra,
  };
}

/**
 * What one fetch may bring: kafkajs keeps a fetched batch in memory until every message of it is
 * handled, and its defaults (1 MiB per partition, 10 MiB per fetch) are sized for throughput, not
 * for a service that should stay small. Our messages are a few KB; 256 KiB per partition still
 * brings hundreds of them per fetch.
 */
export const CONSUMER_FETCH_LIMITS = { maxBytesPerPartition: 256 * 1024, maxBytes: 2 * 1024 * 1024 } as const;

/**
 * Every consumer of a service: the group and its own settings, with the fetch limits above and the
 * metadata refresh interval of the service's configuration (KAFKA_METADATA_MAX_AGE_MS).
 */
export function consumerConfig(kafka: KafkaConfig, config: ConsumerConfig): ConsumerConfig {
  return { metadataMaxAge: kafka.metadataMaxAgeMs, ...config, ...CONSUMER_FETCH_LIMITS };
}

/**
 * One produce request's payload: an entry per topic, each topic's messages in the order given
 * (so one key's messages keep their order on its partition).
 */
export function byTopic(sends: Iterable<{ topic: string; messages: Message[] }>): TopicMessages[] {
  const grouped = new Map<string, TopicMessages>();
  for (const { topic, messages } of sends) {
    const entry = grouped.get(topic);
    if (entry) entry.messages.push(...messages);
    else grouped.set(topic, { topic, messages: [...messages] });
  }
  return [...grouped.values()];
}

/**
 * Creates topics (those that exist are left alone) and waits until every partition has a leader.
 * A freshly created topic is briefly unknown to the broker's metadata cache under load
 * ("This server does not host this topic-partition"), so both steps retry for a while.
 */
export async function createTopicsAndWait(admin: Admin, topics: ITopicConfig[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const names = topics.map((t) => t.topic);
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.createTopics({ topics, waitForLeaders: false });
      const { topics: meta } = await admin.fetchTopicMetadata({ topics: names });
      const ready =
        meta.length === names.length &&
        meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`topics ${names.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
  }
}
