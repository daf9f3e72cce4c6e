import { CustomTransportStrategy, Server, MessageHandler } from '@nestjs/microservices';
import { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { ContractViolation, EnvelopeParse, parseEnvelope, ReplyHeaders, ReplyTopics } from '@payments/contracts';
import { backoffMs } from '@payments/backoff';
import type { HealthComponent, KafkaConfig } from '@payments/platform';
import { lastValueFrom } from 'rxjs';
import { freshClientCheck } from './broker-probe';
import { ConsumerHealth, ProducerHealth } from './client-health';
import { ConsumerRestarts, restartAfterCrash } from './consumer-restart';
import { ReplySender } from './reply-sender';
import { refusal } from './audience-guard';
import { OffsetCommitter, SHUTDOWN_COMMIT_MS, through } from './offset-committer';
import { isInfrastructureFault } from '@payments/platform';
import { consumerConfig, createKafka, prefixed, unprefixed } from './kafka';
import { BatchMessageFailure, KafkaBatchContext, KafkaMessageContext } from './handler-context';
import { header, replyToRequest } from './handler-reply';
import { DeadLetterer } from './dead-letterer';
import { InFlightSlots } from './in-flight-slots';
import { BatchItem, segments } from './batch-segments';
import { handleByKey } from './key-lanes';

// What handlers receive and throw, and the reply's time to live, are imported from here by callers.
export { BATCH_HANDLER, BatchMessageFailure, KafkaBatchContext, KafkaMessageContext } from './handler-context';
export { DEFAULT_REPLY_TTL_MS } from './handler-reply';

export interface KafkaTransportOptions {
  kafka: KafkaConfig;
  groupId: string;
  /** Contract topic names (without prefix) this service consumes. */
  topics: string[];
  /** Attempts per message before it goes to the dead-letter topic. */
  maxAttempts?: number;
  retryBackoffMs?: number;
  partitionsConsumedConcurrently?: number;
  /** Messages of different keys handled at once within one partition's batch (same key: in order). */
  keysConcurrently?: number;
  /** Messages handled at once across all partitions: bounds memory and the wait for pool connections. */
  maxInFlight?: number;
  /** The reply topics this service answers on (contract names); every requester's where not given. */
  replyTopics?: readonly string[];
  /** HEALTH_STALL_MS: see ConsumerHealth and ProducerHealth. */
  stallMs?: number;
  /**
   * How the consumer fetches: the broker answers once `minBytes` are there, or after
   * `maxWaitTimeInMs`. Without it, 1 byte and 500 ms: at once, which a consumer on a request's path
   * needs. One that only books what happened and answers no one may wait for more, and handles
   * fewer, larger batches (the ledger's events, decision 352).
   */
  fetch?: { maxWaitTimeInMs: number; minBytes: number };
  /**
   * Set when a service runs more than one consumer: names its health components
   * (`kafka-consumer:<name>`, `kafka-producer:dead-letters:<name>`), which would replace the
   * other's.
   */
  name?: string;
}

/** How long finished offsets may wait to be committed (KAFKA_COMMIT_INTERVAL_MS); see OffsetCommitter. */
export const DEFAULT_COMMIT_INTERVAL_MS = 1000;

/**
 * A NestJS transport over kafkajs with the delivery guarantees this service needs, which Nest's
 * built-in Kafka transport does not give: handlers are matched by the envelope's `type`; an offset
 * is committed only after its handler finished; a failing message is retried a bounded number of
 * times and then dead-lettered with its error (never dropped); a malformed message is
 * dead-lettered at once; a handler's return value is sent to the `reply-topic` header's topic.
 * A failure because the database or broker is unreachable is not the message's fault: it is
 * retried for as long as the outage lasts and never counts as an attempt.
 */
export class KafkaTransport extends Server implements CustomTransportStrategy {
  private kafka?: Kafka;
  private consumer?: Consumer;
  private readonly deadLetters: DeadLetterer;
  private readonly replies: ReplySender;
  private readonly consumerHealth: ConsumerHealth;
  private readonly deadLetterHealth: ProducerHealth;
  private readonly slots: InFlightSlots;
  private joined?: Promise<void>;
  private stopping = false;
  private restarts?: ConsumerRestarts;
  /** Each message's envelope, parsed once when its batch is cut into runs. */
  private readonly parsed = new WeakMap<KafkaMessage, EnvelopeParse>();
  /** Finished offsets, committed once per interval (KAFKA_COMMIT_INTERVAL_MS), not per batch. */
  private readonly offsets: OffsetCommitter;

  constructor(private readonly opts: KafkaTransportOptions) {
    super();
    this.offsets = new OffsetCommitter(opts.kafka.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS);
    this.replies = new ReplySender({
      kafka: opts.kafka,
      topics: opts.replyTopics ?? Object.values(ReplyTopics),
      clientIdSuffix: opts.groupId,
      sendTimeoutMs: opts.kafka.replySendTimeoutMs,
      stallMs: opts.stallMs,
    });
    const freshClient = freshClientCheck(opts.kafka);
    const named = opts.name ? `:${opts.name}` : '';
    this.consumerHealth = new ConsumerHealth(`kafka-consumer${named}`, opts.kafka.topicPrefix + opts.groupId, {
      stallMs: opts.stallMs,
      freshClient,
    }).subscribedTo(opts.topics.map((t) => prefixed(opts.kafka, t)));
    this.deadLetterHealth = new ProducerHealth(`kafka-producer:dead-letters${named}`, {
      stallMs: opts.stallMs,
      freshClient,
    });
    this.deadLetters = new DeadLetterer(opts.kafka, opts.groupId, this.deadLetterHealth);
    this.slots = new InFlightSlots(opts.maxInFlight ?? 32);
  }

  /** What /health/ready and /health/live ask: the consumer, the dead-letter producer, each reply topic's producer. */
  healthComponents(): HealthComponent[] {
    return [this.consumerHealth, this.deadLetterHealth, ...this.replies.health];
  }

  /** Resolves once the consumer has joined its group and has partitions assigned. */
  whenJoined(): Promise<void> {
    return this.joined ?? Promise.reject(new Error('transport not listening'));
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const kafka = (this.kafka = createKafka(this.opts.kafka, `-${this.opts.groupId}`));
      // One producer per dead-letter topic: one deleted never stops dead-lettering to the others.
      this.deadLetters.start(kafka);
      await this.replies.start();
      const consumer = (this.consumer = kafka.consumer(
        consumerConfig(this.opts.kafka, {
          groupId: this.opts.kafka.topicPrefix + this.opts.groupId,
          sessionTimeout: 10_000,
          heartbeatInterval: 1_000,
          rebalanceTimeout: 20_000,
          maxWaitTimeInMs: 500,
          ...this.opts.fetch,
          retry: { retries: 30, initialRetryTime: 300, maxRetryTime: 5000 },
        }),
      ));
      this.consumerHealth.watch(consumer, { restartedAfterCrash: true });
      this.joined = new Promise((resolve) => {
        consumer.on(consumer.events.GROUP_JOIN, () => resolve());
      });
      // A crash after a retriable error kafkajs restarts by itself; after any other (the broker
      // away longer than the coordinator lookup's retries) restartAfterCrash does.
      consumer.on(consumer.events.CRASH, (e) =>
        this.logger.error(`consumer crashed: ${e.payload.error.message} (restart: ${e.payload.restart})`),
      );
      const start = async () => {
        await consumer.subscribe({
          topics: this.opts.topics.map((t) => prefixed(this.opts.kafka, t)),
          fromBeginning: true,
        });
        await consumer.run({
          // Our own commits (OffsetCommitter): kafkajs's would follow every batch.
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: this.opts.partitionsConsumedConcurrently ?? 8,
          eachBatch: (payload) => this.handleBatch(payload),
        });
      };
      this.restarts = restartAfterCrash(consumer, {
        start,
        stopping: () => this.stopping,
        log: (line) => this.logger.warn(line),
      });
      await consumer.connect();
      this.offsets.start(consumer, (e) =>
        this.logger.debug?.(`offset commit failed, retried with the next: ${e instanceof Error ? e.message : e}`),
      );
      await start();
      callback();
    } catch (err) {
      callback(err);
    }
  }

  async close(): Promise<void> {
    this.stopping = true;
    await this.restarts?.cancel();
    this.offsets.stop();
    // What was finished so far; a batch still running commits its own when it ends (stopping).
    if (this.consumer) await this.offsets.commitBefore(through(this.consumer), SHUTDOWN_COMMIT_MS);
    await this.consumer?.disconnect().catch(() => undefined);
    await this.replies.stop();
    await this.deadLetters.disconnect();
  }

  on(): void {
    throw new Error('KafkaTransport does not expose events');
  }

  unwrap<T>(): T {
    return { consumer: this.consumer, deadLetters: this.deadLetters.topicProducers } as T;
  }

  /**
   * The handler of an envelope type. Every pattern here is a plain string, its own route, so this
   * is the Map lookup alone: Nest's `getHandlerByPattern` first tries `JSON.parse` on the type,
   * which throws for every message (about 4 % of a consumer's CPU went to building that error).
   */
  private handlerOf(type: string): MessageHandler | undefined {
    return this.messageHandlers.get(type) ?? undefined;
  }

  /**
   * One partition's batch, cut into runs in offset order: a run of messages whose handler takes
   * batches (and that wait for no reply) goes to that handler in one call; every other run goes
   * message by message, where messages with the same key are handled one after another in offset
   * order (one aggregate's events stay in order) and different keys run side by side, up to
   * `keysConcurrently` at a time. A run starts when the one before it finished, so per-key order
   * holds across runs too. Offsets are resolved only up to the first message not finished, so a
   * failure or a shutdown mid-batch brings back exactly what was not handled.
   */
  private async handleBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
    commitOffsetsIfNecessary,
  }: EachBatchPayload): Promise<void> {
    const { topic, partition, messages } = batch;
    if (messages.length === 0) return;
    const finished = new Set<string>();
    let failure: unknown;
    const handlerFor = (type: string) => this.handlerOf(type);
    for (const segment of segments(unprefixed(this.opts.kafka, topic), messages, handlerFor, this.parsed)) {
      if (failure !== undefined || !isRunning() || isStale()) break;
      if (segment.kind === 'batch') {
        await this.slots.acquire();
        try {
          await this.handleAsBatch(topic, partition, segment.handler, segment.items, finished, heartbeat);
        } catch (err) {
          failure = err;
        } finally {
          this.slots.release();
        }
        await heartbeat().catch(() => undefined);
      } else {
        const stop = () => !isRunning() || isStale();
        failure = await handleByKey(segment.messages, this.opts.keysConcurrently ?? 16, stop, async (message) => {
          await this.slots.acquire();
          try {
            await this.handle(topic, partition, message, heartbeat);
          } finally {
            this.slots.release();
          }
          finished.add(message.offset);
          await heartbeat().catch(() => undefined);
        });
      }
    }
    let last: string | undefined;
    for (const message of messages) {
      if (!finished.has(message.offset)) break;
      last = message.offset;
    }
    if (last !== undefined) {
      resolveOffset(last);
      this.offsets.finished(topic, partition, last);
    }
    // Inside the batch the payload's call commits directly: it still works while the consumer stops.
    if (this.stopping || this.offsets.due())
      await this.offsets.commit((o) => commitOffsetsIfNecessary(o)).catch(() => undefined);
    if (failure !== undefined) throw failure;
  }

  /**
   * A run of messages for one batch handler, in one call. The rules of the per-message path hold
   * for each message: an outage retries the whole run for as long as it lasts and counts as no
   * attempt; a message the handler names as at fault (BatchMessageFailure) is dead-lettered alone
   * at once for a ContractViolation, or after maxAttempts tries of the run otherwise, and the rest
   * is retried without it. A failure that names no message is found out by handling the run's
   * messages one by one (a batch of one each), so a poison message never takes its neighbours along.
   */
  private async handleAsBatch(
    topic: string,
    partition: number,
    handler: MessageHandler,
    items: BatchItem[],
    finished: Set<string>,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const contractTopic = unprefixed(this.opts.kafka, topic);
    const maxAttempts = this.opts.maxAttempts ?? 5;
    const backoff = { baseMs: this.opts.retryBackoffMs ?? 200 };
    const attempts = new Map<string, number>();
    let pending = items;
    for (let outage = 0; pending.length > 0;) {
      const ctx = new KafkaBatchContext([
        contractTopic,
        partition,
        pending.map(
          ({ message }) => new KafkaMessageContext([contractTopic, partition, message.offset, message.headers ?? {}]),
        ),
      ]);
      try {
        await lastValueFrom(
          this.transformToObservable(
            await handler(
              pending.map((i) => i.env),
              ctx,
            ),
          ),
          { defaultValue: undefined },
        );
        if (outage > 0)
          this.logger.log(
            `a batch of ${pending.length} on ${contractTopic} handled after an outage of ${outage} tries`,
          );
        for (const { message } of pending) finished.add(message.offset);
        return;
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        const cause = err instanceof BatchMessageFailure ? err.cause : err;
        if (isInfrastructureFault(err) && !(cause instanceof ContractViolation)) {
          if (this.stopping) throw err;
          outage++;
          if (outage === 1 || outage % 10 === 0)
            this.logger.warn(
              `a batch of ${pending.length} on ${contractTopic}: database or broker unreachable (${reason}); retrying until it is back (try ${outage})`,
            );
          await new Promise((r) => setTimeout(r, backoffMs(outage, { ...backoff, capMs: 5000 })));
          await heartbeat().catch(() => undefined);
          continue;
        }
        const named =
          err instanceof BatchMessageFailure ? pending.find((i) => i.env.eventId === err.eventId) : undefined;
        const failed = named ?? (pending.length === 1 ? pending[0] : undefined);
        if (!failed) {
          // Nobody knows which message it was: one by one finds it, and handles the others.
          for (const item of pending) await this.handleAsBatch(topic, partition, handler, [item], finished, heartbeat);
          return;
        }
        const attempt = (attempts.get(failed.message.offset) ?? 0) + 1;
        attempts.set(failed.message.offset, attempt);
        const { env, message } = failed;
        if (cause instanceof ContractViolation || attempt >= maxAttempts) {
          this.logger.error(`${env.type} ${env.eventId} failed after ${attempt} attempt(s), dead-lettered: ${reason}`);
          const source = { topic, partition, offset: message.offset, key: message.key?.toString() ?? null };
          await this.deadLetters.send(source, message.value, message.headers, reason, attempt);
          finished.add(message.offset);
          pending = pending.filter((i) => i !== failed);
          continue;
        }
        if (this.stopping) throw err;
        this.logger.warn(`${env.type} ${env.eventId} failed (attempt ${attempt}/${maxAttempts}): ${reason}`);
        await new Promise((r) => setTimeout(r, backoffMs(attempt, backoff)));
      }
    }
  }

  private async handle(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const parsed = this.parsed.get(message) ?? parseEnvelope(message.value);
    const source = { topic, partition, offset: message.offset, key: message.key?.toString() ?? null };
    if (parsed.kind === 'invalid') {
      await this.deadLetters.send(source, message.value, message.headers, `invalid envelope: ${parsed.reason}`, 0);
      return;
    }
    const env = parsed.envelope;
    // A command that did not come through its audience's path: answered or dropped, never handled.
    const refused = refusal(
      unprefixed(this.opts.kafka, topic),
      env,
      header(message.headers, ReplyHeaders.replyTopic),
      this.opts.kafka.topicPrefix,
    );
    if (refused) return refused.answer && replyToRequest(this.replies, env, message.headers, refused.answer);
    const handler = this.handlerOf(env.type);
    if (!handler) {
      await this.deadLetters.send(
        source,
        message.value,
        message.headers,
        `no handler for message type "${env.type}"`,
        0,
      );
      return;
    }
    const ctx = new KafkaMessageContext([
      unprefixed(this.opts.kafka, topic),
      partition,
      message.offset,
      message.headers ?? {},
    ]);
    const maxAttempts = this.opts.maxAttempts ?? 5;
    const backoff = { baseMs: this.opts.retryBackoffMs ?? 200 };
    for (let attempt = 1, outage = 0; ;) {
      try {
        const result = await lastValueFrom(this.transformToObservable(await handler(env, ctx)), {
          defaultValue: undefined,
        });
        await replyToRequest(this.replies, env, message.headers, result);
        if (outage > 0) this.logger.log(`${env.type} ${env.eventId} handled after an outage of ${outage} tries`);
        return;
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        if (isInfrastructureFault(err) && !(err instanceof ContractViolation)) {
          if (this.stopping) throw err;
          outage++;
          if (outage === 1 || outage % 10 === 0)
            this.logger.warn(
              `${env.type} ${env.eventId}: database or broker unreachable (${reason}); retrying until it is back (try ${outage})`,
            );
          await new Promise((r) => setTimeout(r, backoffMs(outage, { ...backoff, capMs: 5000 })));
          // Stay in the group while waiting; a heartbeat that fails (broker down) changes nothing here.
          await heartbeat().catch(() => undefined);
          continue;
        }
        if (err instanceof ContractViolation || attempt >= maxAttempts) {
          this.logger.error(`${env.type} ${env.eventId} failed after ${attempt} attempt(s), dead-lettered: ${reason}`);
          await this.deadLetters.send(source, message.value, message.headers, reason, attempt);
          return;
        }
        // Shutting down: leave the offset uncommitted, the message comes back after the restart.
        if (this.stopping) throw err;
        this.logger.warn(`${env.type} ${env.eventId} failed (attempt ${attempt}/${maxAttempts}): ${reason}`);
        await new Promise((r) => setTimeout(r, backoffMs(attempt, backoff)));
        attempt++;
      }
    }
  }
}
