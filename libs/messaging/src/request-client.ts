import { Logger } from '@nestjs/common';
import { Admin, Consumer, Kafka, Partitioners, Producer } from 'kafkajs';
import {
  envelope,
  Envelope,
  parseEnvelope,
  Reply,
  ReplyHeaders,
  Requester,
  replyTopic,
  replyTopicSpecs,
} from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';
import type { HealthComponent, HealthRegistry, KafkaConfig } from '@payments/platform';
import { BatchingSender } from './batching-sender';
import { bestEffort } from './best-effort';
import { freshClientCheck } from './broker-probe';
import { ConsumerHealth, ProducerHealth } from './client-health';
import { ConsumerRestarts, restartAfterCrash } from './consumer-restart';
import { consumerConfig, createKafka, createTopicsAndWait, prefixed } from './kafka';

/** How often, at most, a request client checks whether its reply topic is still there. */
const TOPIC_CHECK_INTERVAL_MS = 10_000;

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

/** Which requester an instance is, and which instance: names its reply topic and its group. */
export interface RequesterIdentity {
  requester: Requester;
  instanceId: string;
}

/**
 * Request-reply over Kafka for one instance of a requester (the gateway, checkout). The instances
 * of a requester share one reply topic (ReplyTopics), created with the contract topics (and here
 * where it is missing) and never deleted by an instance. Each instance reads the whole topic with
 * a consumer group of its own, `<reply topic>.<instance id>`, so instances never steal each other's
 * replies or rebalance each other (the failure of Nest's ClientKafka with several instances), and
 * keeps the replies it waits for. The group commits nothing: at start it begins at the topic's
 * end, and after a rejoin where it stopped. Without offsets the broker forgets a group once it is
 * empty, so instance ids that come and go (every rollout) leave nothing behind.
 */
export class KafkaRequestClient {
  private readonly pending = new Map<string, Pending>();
  private readonly kafka: Kafka;
  private readonly replyTo: string;
  private readonly group: string;
  private producer?: Producer;
  private readonly sender = new BatchingSender(() => this.producer);
  private consumer?: Consumer;
  private restarts?: ConsumerRestarts;
  private stopping = false;
  private admin?: Admin;
  private readonly logger = new Logger('KafkaRequestClient');
  private lastTopicCheck = 0;
  /** The next offset to read, per partition of the reply topic. */
  private readonly positions = new Map<number, string>();
  readonly producerHealth: ProducerHealth;
  readonly consumerHealth: ConsumerHealth;

  constructor(
    private readonly config: KafkaConfig,
    identity: RequesterIdentity,
    private readonly defaultTimeoutMs = 5000,
    stallMs?: number,
  ) {
    this.kafka = createKafka(config, `-${identity.instanceId}`);
    this.replyTo = replyTopic(config.topicPrefix, identity.requester);
    this.group = `${this.replyTo}.${identity.instanceId}`;
    const freshClient = freshClientCheck(config);
    this.producerHealth = new ProducerHealth('kafka-producer:requests', { stallMs, freshClient });
    this.consumerHealth = new ConsumerHealth('kafka-consumer:replies', this.group, {
      stallMs,
      freshClient,
    }).subscribedTo([this.replyTo]);
  }

  get replyTopic(): string {
    return this.replyTo;
  }

  /** This instance's consumer group on the reply topic. */
  get groupId(): string {
    return this.group;
  }

  healthComponents(): HealthComponent[] {
    return [this.producerHealth, this.consumerHealth];
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.admin = this.kafka.admin();
    await this.admin.connect();
    await this.createReplyTopic(this.admin);
    // Where this instance starts: the end of the topic now, before any request of its own left.
    for (const p of await endOffsets(this.admin, this.replyTo)) this.positions.set(p.partition, p.high);
    this.producer = this.kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      metadataMaxAge: this.config.metadataMaxAgeMs,
      // A request unsent after a few seconds has timed out anyway (the caller answers 503 and the
      // merchant retries): a few quick retries ride out a leader moving, and nothing retries on
      // behind a request nobody waits for.
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
    });
    await this.producer.connect();
    const consumer = (this.consumer = this.kafka.consumer(
      consumerConfig(this.config, {
        groupId: this.group,
        maxWaitTimeInMs: 500,
        sessionTimeout: 10_000,
        heartbeatInterval: 1000,
      }),
    ));
    this.consumerHealth.watch(consumer, { restartedAfterCrash: true });
    consumer.on(consumer.events.CRASH, () => void this.recreateReplyTopicIfGone());
    const joined = new Promise<void>((resolve) =>
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        // Synchronous, before the first fetch of the assignment: no reply is skipped, whatever
        // kafkajs would resolve for a group without offsets.
        for (const partition of payload.memberAssignment[this.replyTo] ?? []) {
          const offset = this.positions.get(partition);
          if (offset !== undefined) consumer.seek({ topic: this.replyTo, partition, offset });
        }
        resolve();
      }),
    );
    const run = async () => {
      await consumer.subscribe({ topic: this.replyTo, fromBeginning: false });
      await this.runReplyConsumer(consumer);
    };
    // The broker away longer than the coordinator lookup's retries: kafkajs gives up, we do not.
    this.restarts = restartAfterCrash(consumer, {
      start: run,
      // Per consumer: a start after a stop makes a new one, and the old one's restarts stay stopped.
      stopping: () => this.stopping || this.consumer !== consumer,
      log: (line) => this.logger.warn(`replies: ${line}`),
    });
    await consumer.connect();
    await run();
    await joined;
  }

  private async runReplyConsumer(consumer: Consumer): Promise<void> {
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        this.positions.set(partition, (BigInt(message.offset) + 1n).toString());
        const id = message.headers?.[ReplyHeaders.correlationId]?.toString();
        const waiting = id ? this.pending.get(id) : undefined;
        // Another instance's reply, or one that came after its request timed out.
        if (!waiting || !id) return;
        const parsed = parseEnvelope(message.value);
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        if (parsed.kind === 'invalid') waiting.reject(new Error(`malformed reply: ${parsed.reason}`));
        else waiting.resolve(parsed.envelope.payload as Reply<unknown>);
      },
    });
  }

  private async createReplyTopic(admin: Admin): Promise<void> {
    const spec = replyTopicSpecs(this.config.topicPrefix).find((s) => s.name === this.replyTo)!;
    await createTopicsAndWait(admin, [
      {
        topic: spec.name,
        numPartitions: spec.partitions,
        replicationFactor: this.config.replicationFactor,
        configEntries: Object.entries(spec.config ?? {}).map(([name, value]) => ({ name, value })),
      },
    ]);
  }

  /**
   * After a timeout or a crash of the reply consumer, at most every 10 s: if the reply topic is
   * gone (deleted by hand), it is created again and the positions start at its new end, so
   * replies flow again without a restart. The services' reply producers find it at their next
   * metadata refresh (decision 252); what was answered meanwhile was dropped and counted.
   */
  private async recreateReplyTopicIfGone(): Promise<void> {
    const now = Date.now();
    if (!this.producer || now - this.lastTopicCheck < TOPIC_CHECK_INTERVAL_MS) return;
    this.lastTopicCheck = now;
    // A fresh admin: the long-lived one keeps the deleted topic's metadata.
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      if ((await admin.listTopics()).includes(this.replyTo)) return;
      await this.createReplyTopic(admin);
      for (const p of await endOffsets(admin, this.replyTo)) this.positions.set(p.partition, p.high);
      this.logger.warn(`reply topic ${this.replyTo} was gone: created again`);
    } catch (err) {
      this.logger.warn(`reply topic ${this.replyTo} could not be checked: ${err instanceof Error ? err.message : err}`);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** Nest calls this when the app closes. */
  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    if (!this.producer) return;
    this.stopping = true;
    await this.restarts?.cancel();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('gateway is shutting down'));
      this.pending.delete(id);
    }
    await this.consumer?.disconnect().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
    // The group is empty and has no offsets: the broker drops it by itself; this only tidies now.
    if (this.admin) await bestEffort(this.admin.deleteGroups([this.group]));
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
        void this.recreateReplyTopicIfGone();
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
    const destination = prefixed(this.config, topic);
    const sent = this.producerHealth.track(
      this.sender.send(destination, [
        {
          key,
          value: JSON.stringify(message),
          headers: {
            [ReplyHeaders.replyTopic]: this.replyTo,
            [ReplyHeaders.replyBy]: String(Date.now() + timeoutMs),
          },
        },
      ]),
      [destination],
    );
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

/**
 * A topic's end offsets. A topic created a moment ago may not have its leaders settled yet
 * ("not the leader for that topic-partition"): asked again for a while.
 */
async function endOffsets(admin: Admin, topic: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (err) {
      if (Date.now() > deadline || (err as { retriable?: boolean }).retriable === false) throw err;
      await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1000)));
    }
  }
}

/**
 * A started request client whose Kafka clients are part of the app's health: what the gateway and
 * checkout provide as their REQUEST_CLIENT.
 */
export async function startRequestClient(
  config: KafkaConfig,
  identity: RequesterIdentity,
  opts: { timeoutMs: number; stallMs: number; health: HealthRegistry },
): Promise<KafkaRequestClient> {
  const client = new KafkaRequestClient(config, identity, opts.timeoutMs, opts.stallMs);
  await client.start();
  for (const component of client.healthComponents()) opts.health.register(component);
  return client;
}
