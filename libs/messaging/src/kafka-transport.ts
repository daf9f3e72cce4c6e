import { CustomTransportStrategy, Server, BaseRpcContext, MessageHandler } from '@nestjs/microservices';
import { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import {
  ContractViolation,
  dlqTopic,
  envelope,
  Envelope,
  EnvelopeParse,
  parseEnvelope,
  ReplyHeaders,
  ReplyTopics,
} from '@payments/contracts';
import { backoffMs } from '@payments/backoff';
import type { HealthComponent, KafkaConfig } from '@payments/platform';
import { lastValueFrom } from 'rxjs';
import { freshClientCheck } from './broker-probe';
import { ConsumerHealth, ProducerHealth } from './client-health';
import { restartAfterCrash } from './consumer-restart';
import { TopicProducers } from './topic-producers';
import { ReplySender } from './reply-sender';
import { onItsPath, refusal } from './audience-guard';
import { OffsetCommitter, SHUTDOWN_COMMIT_MS, through } from './offset-committer';
import { isInfrastructureFault } from '@payments/platform';
import { consumerConfig, createKafka, producerConfig, prefixed, unprefixed } from './kafka';

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
}

/**
 * How long a reply is worth sending to a request without a `reply-by` header (sent by a requester
 * of an earlier version): longer than any requester waits.
 */
export const DEFAULT_REPLY_TTL_MS = 60_000;

/** What a handler receives besides the envelope. */
export class KafkaMessageContext extends BaseRpcContext<[string, number, string, IHeaders]> {
  get topic(): string {
    return this.args[0];
  }
  get partition(): number {
    return this.args[1];
  }
  get offset(): string {
    return this.args[2];
  }
  get headers(): IHeaders {
    return this.args[3];
  }
}

/** What a batch handler receives besides the envelopes: where they came from, one context per envelope. */
export class KafkaBatchContext extends BaseRpcContext<[string, number, KafkaMessageContext[]]> {
  get topic(): string {
    return this.args[0];
  }
  get partition(): number {
    return this.args[1];
  }
  get messages(): KafkaMessageContext[] {
    return this.args[2];
  }
}

/** The `extras` of a handler that takes a partition's batch: `@EventPattern(type, BATCH_HANDLER)`. */
export const BATCH_HANDLER = { batch: true } as const;

/**
 * Thrown by a batch handler when one message of the batch is at fault: the transport then treats
 * that message alone as failed (dead-letters it at once for a ContractViolation, otherwise counts
 * an attempt) and retries the rest of the batch without it. `cause` is what went wrong.
 */
export class BatchMessageFailure extends Error {
  constructor(
    readonly eventId: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'BatchMessageFailure';
  }
}

/** How long finished offsets may wait to be committed (KAFKA_COMMIT_INTERVAL_MS); see OffsetCommitter. */
export const DEFAULT_COMMIT_INTERVAL_MS = 1000;

interface BatchItem {
  message: KafkaMessage;
  env: Envelope;
}

type Segment =
  { kind: 'single'; messages: KafkaMessage[] } | { kind: 'batch'; handler: MessageHandler; items: BatchItem[] };

function header(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v[0]?.toString() : v.toString();
}

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
  private deadLetters?: TopicProducers;
  private readonly replies: ReplySender;
  private readonly consumerHealth: ConsumerHealth;
  private readonly deadLetterHealth: ProducerHealth;
  private inFlight = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private joined?: Promise<void>;
  private stopping = false;
  private cancelRestart?: () => void;
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
    this.consumerHealth = new ConsumerHealth('kafka-consumer', opts.kafka.topicPrefix + opts.groupId, {
      stallMs: opts.stallMs,
      freshClient,
    }).subscribedTo(opts.topics.map((t) => prefixed(opts.kafka, t)));
    this.deadLetterHealth = new ProducerHealth('kafka-producer:dead-letters', { stallMs: opts.stallMs, freshClient });
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
      this.deadLetters = new TopicProducers(kafka, producerConfig(this.opts.kafka));
      await this.replies.start();
      const consumer = (this.consumer = kafka.consumer(
        consumerConfig(this.opts.kafka, {
          groupId: this.opts.kafka.topicPrefix + this.opts.groupId,
          sessionTimeout: 10_000,
          heartbeatInterval: 1_000,
          rebalanceTimeout: 20_000,
          maxWaitTimeInMs: 500,
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
      this.cancelRestart = restartAfterCrash(consumer, {
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
    this.cancelRestart?.();
    this.offsets.stop();
    // What was finished so far; a batch still running commits its own when it ends (stopping).
    if (this.consumer) await this.offsets.commitBefore(through(this.consumer), SHUTDOWN_COMMIT_MS);
    await this.consumer?.disconnect().catch(() => undefined);
    await this.replies.stop();
    await this.deadLetters?.disconnect();
  }

  on(): void {
    throw new Error('KafkaTransport does not expose events');
  }

  unwrap<T>(): T {
    return { consumer: this.consumer, deadLetters: this.deadLetters } as T;
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
    for (const segment of this.segments(unprefixed(this.opts.kafka, topic), messages)) {
      if (failure !== undefined || !isRunning() || isStale()) break;
      if (segment.kind === 'batch') {
        await this.acquireSlot();
        try {
          await this.handleAsBatch(topic, partition, segment.handler, segment.items, finished, heartbeat);
        } catch (err) {
          failure = err;
        } finally {
          this.releaseSlot();
        }
        await heartbeat().catch(() => undefined);
      } else {
        failure = await this.handleByKey(topic, partition, segment.messages, finished, heartbeat, isRunning, isStale);
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

  /** Cuts a partition's batch into runs of one batch handler's messages and runs of the rest, in offset order. */
  private segments(contractTopic: string, messages: KafkaMessage[]): Segment[] {
    const segments: Segment[] = [];
    for (const message of messages) {
      let item: BatchItem | undefined;
      let handler: MessageHandler | undefined;
      const parsed = parseEnvelope(message.value);
      this.parsed.set(message, parsed);
      if (!header(message.headers, ReplyHeaders.replyTopic)) {
        handler = parsed.kind === 'ok' ? (this.getHandlerByPattern(parsed.envelope.type) ?? undefined) : undefined;
        const batch = parsed.kind === 'ok' && handler?.extras?.batch === true;
        if (batch && onItsPath(contractTopic, parsed.envelope.type)) item = { message, env: parsed.envelope };
      }
      const tail = segments[segments.length - 1];
      if (item) {
        if (tail?.kind === 'batch' && tail.handler === handler) tail.items.push(item);
        else segments.push({ kind: 'batch', handler: handler!, items: [item] });
      } else if (tail?.kind === 'single') tail.messages.push(message);
      else segments.push({ kind: 'single', messages: [message] });
    }
    return segments;
  }

  /** Message by message, keys side by side; returns the first failure (the rest of its lane is left undone). */
  private async handleByKey(
    topic: string,
    partition: number,
    messages: KafkaMessage[],
    finished: Set<string>,
    heartbeat: () => Promise<void>,
    isRunning: () => boolean,
    isStale: () => boolean,
  ): Promise<unknown> {
    const lanes = new Map<string, KafkaMessage[]>();
    for (const message of messages) {
      const key = message.key?.toString('latin1') ?? '';
      const lane = lanes.get(key);
      if (lane) lane.push(message);
      else lanes.set(key, [message]);
    }
    let failure: unknown;
    const queue = [...lanes.values()];
    const runLanes = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const message of lane) {
          if (failure !== undefined || !isRunning() || isStale()) return;
          await this.acquireSlot();
          try {
            await this.handle(topic, partition, message, heartbeat);
          } catch (err) {
            failure ??= err;
            return;
          } finally {
            this.releaseSlot();
          }
          finished.add(message.offset);
          await heartbeat().catch(() => undefined);
        }
      }
    };
    const workers = Math.min(queue.length, this.opts.keysConcurrently ?? 16);
    await Promise.all(Array.from({ length: workers }, runLanes));
    return failure;
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
          await this.deadLetter(source, message.value, message.headers, reason, attempt);
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

  private acquireSlot(): Promise<void> {
    if (this.inFlight < (this.opts.maxInFlight ?? 32)) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  /** Hands the slot straight to the next waiter, or frees it. */
  private releaseSlot(): void {
    const next = this.slotWaiters.shift();
    if (next) next();
    else this.inFlight -= 1;
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
      await this.deadLetter(source, message.value, message.headers, `invalid envelope: ${parsed.reason}`, 0);
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
    if (refused) return refused.answer && this.reply(env, message.headers, refused.answer);
    const handler = this.getHandlerByPattern(env.type);
    if (!handler) {
      await this.deadLetter(source, message.value, message.headers, `no handler for message type "${env.type}"`, 0);
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
        await this.reply(env, message.headers, result);
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
          await this.deadLetter(source, message.value, message.headers, reason, attempt);
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

  /**
   * Sends the handler's answer to the request's `reply-topic`, or gives it up (ReplySender): a
   * requester that is gone, or a reply topic that is not one of ours, never holds up the message.
   */
  private async reply(request: Envelope, headers: IHeaders | undefined, result: unknown): Promise<void> {
    const replyTo = header(headers, ReplyHeaders.replyTopic);
    if (!replyTo || result === undefined) return;
    const replyBy = Number(header(headers, ReplyHeaders.replyBy));
    const deadline =
      Number.isFinite(replyBy) && replyBy > 0 ? replyBy : Date.parse(request.occurredAt) + DEFAULT_REPLY_TTL_MS;
    const response = envelope({
      type: `${request.type}.reply`,
      payload: result,
      occurredAt: new Date(),
      causedBy: request,
    });
    await this.replies.send(
      replyTo,
      {
        key: request.eventId,
        value: JSON.stringify(response),
        headers: { [ReplyHeaders.correlationId]: request.eventId },
      },
      deadline,
      `${request.type} ${request.eventId}`,
    );
  }

  private async deadLetter(
    source: { topic: string; partition: number; offset: string; key: string | null },
    value: Buffer | null,
    headers: IHeaders | undefined,
    error: string,
    attempts: number,
  ): Promise<void> {
    // If this send fails the handler throws, the offset is not committed and the message comes back.
    const topic = dlqTopic(source.topic);
    const producer = await this.deadLetters!.get(topic);
    await this.deadLetterHealth.track(
      producer.send({
        topic,
        acks: -1,
        messages: [
          {
            key: source.key,
            value,
            headers: {
              ...(headers ?? {}),
              'dlq-error': error.slice(0, 2000),
              'dlq-original-topic': unprefixed(this.opts.kafka, source.topic),
              'dlq-original-partition': String(source.partition),
              'dlq-original-offset': source.offset,
              'dlq-consumer-group': this.opts.groupId,
              'dlq-attempts': String(attempts),
              'dlq-at': new Date().toISOString(),
            },
          },
        ],
      }),
      [topic],
    );
  }
}
