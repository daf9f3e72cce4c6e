import { Logger } from '@nestjs/common';
import { Admin, Consumer, Kafka, Partitioners, Producer } from 'kafkajs';
import { envelope, Envelope, parseEnvelope, Reply, ReplyHeaders, replyTopic } from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';
import type { KafkaConfig } from '@payments/platform';
import { BatchingSender } from './batching-sender';
import { consumerConfig, createKafka, createTopicsAndWait, prefixed } from './kafka';
import { DEFAULT_COMMIT_INTERVAL_MS } from './kafka-transport';
import { OffsetCommitter, SHUTDOWN_COMMIT_MS, through } from './offset-committer';

export class RequestTimeout extends Error {
  override readonly name = 'RequestTimeout';
}

interface Pending {
  resolve: (reply: Reply<unknown>) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface RequestOptions {
  timeoutMs?: number;
  correlationId?: string;
}

/**
 * Request-reply over Kafka for one gateway instance. Each instance reads replies from a topic of
 * its own, with a consumer group of its own, so instances never steal each other's replies and
 * never rebalance each other (the failure of Nest's ClientKafka with several instances).
 * The reply topic is deleted when the instance stops; it keeps replies for an hour at most.
 */
export class KafkaRequestClient {
  private readonly logger = new Logger('KafkaRequestClient');
  private readonly pending = new Map<string, Pending>();
  private readonly kafka: Kafka;
  private readonly replyTo: string;
  private producer?: Producer;
  private readonly sender = new BatchingSender(() => this.producer);
  private consumer?: Consumer;
  private admin?: Admin;
  private readonly offsets: OffsetCommitter;

  constructor(
    private readonly config: KafkaConfig,
    instanceId: string,
    private readonly defaultTimeoutMs = 5000,
  ) {
    // At least a second: a reply's offset only matters after a crash.
    this.offsets = new OffsetCommitter(Math.max(config.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS, 1000));
    this.kafka = createKafka(config, `-${instanceId}`);
    this.replyTo = replyTopic(config.topicPrefix, instanceId);
  }

  get replyTopic(): string {
    return this.replyTo;
  }

  async start(): Promise<void> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    await createTopicsAndWait(this.admin, [
      {
        topic: this.replyTo,
        numPartitions: 1,
        replicationFactor: this.config.replicationFactor,
        configEntries: [{ name: 'retention.ms', value: '3600000' }],
      },
    ]);
    this.producer = this.kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await this.producer.connect();
    const consumer = (this.consumer = this.kafka.consumer(
      consumerConfig({
        groupId: this.replyTo,
        maxWaitTimeInMs: 500,
        sessionTimeout: 10_000,
        heartbeatInterval: 1000,
      }),
    ));
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: this.replyTo, fromBeginning: true });
    // Replies matter only to the requests waiting in this process: their offsets are committed on
    // an interval (after a restart under the same instance id the topic is read from there, not
    // from its start).
    this.offsets.start(consumer, () => undefined);
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        this.offsets.finished(topic, partition, message.offset);
        const id = message.headers?.[ReplyHeaders.correlationId]?.toString();
        const waiting = id ? this.pending.get(id) : undefined;
        if (!waiting || !id) return; // a reply that arrived after its request timed out
        const parsed = parseEnvelope(message.value);
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        if (parsed.kind === 'invalid') waiting.reject(new Error(`malformed reply: ${parsed.reason}`));
        else waiting.resolve(parsed.envelope.payload as Reply<unknown>);
      },
    });
    await joined;
  }

  /** Nest calls this when the app closes. */
  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    if (!this.producer) return;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('gateway is shutting down'));
      this.pending.delete(id);
    }
    this.offsets.stop();
    if (this.consumer) await this.offsets.commitBefore(through(this.consumer), SHUTDOWN_COMMIT_MS);
    await this.consumer?.disconnect().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin
      ?.deleteTopics({ topics: [this.replyTo] })
      .catch((e: Error) => this.logger.warn(`could not delete ${this.replyTo}: ${e.message}`));
    await this.admin?.disconnect().catch(() => undefined);
    this.producer = undefined;
  }

  /** Sends a request and waits for its reply; rejects with RequestTimeout when none comes in time. */
  async request<T>(
    topic: string,
    key: string,
    type: string,
    payload: unknown,
    opts: RequestOptions = {},
  ): Promise<Reply<T>> {
    if (!this.producer) throw new Error('request client not started');
    const message: Envelope = envelope({ type, payload, occurredAt: new Date(), correlationId: opts.correlationId });
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    // Labelled by the contract topic (bounded); the clock runs from the send to the reply.
    const roundTrip = PaymentsMetrics.requestReplyDuration.startTimer({ topic });
    const reply = new Promise<Reply<unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(message.eventId);
        PaymentsMetrics.requestReplyTimeouts.inc({ topic });
        reject(new RequestTimeout(`no reply to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(message.eventId, {
        resolve: (r) => {
          roundTrip();
          resolve(r);
        },
        reject,
        timer,
      });
    });
    // While the broker is down the send keeps retrying: the timeout runs from the start and ends
    // the wait either way (the request may still go out later; the caller treats it as unknown).
    // Raced, the timeout never rejects unhandled, which would kill the process.
    const sent = this.sender.send(prefixed(this.config, topic), [
      { key, value: JSON.stringify(message), headers: { [ReplyHeaders.replyTopic]: this.replyTo } },
    ]);
    try {
      await Promise.race([sent, reply]);
    } catch (err) {
      const waiting = this.pending.get(message.eventId);
      if (waiting) {
        clearTimeout(waiting.timer);
        this.pending.delete(message.eventId);
      }
      throw err;
    }
    return reply as Promise<Reply<T>>;
  }
}
