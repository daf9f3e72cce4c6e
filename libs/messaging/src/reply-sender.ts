import { Logger } from '@nestjs/common';
import { Kafka, Message, Partitioners, Producer } from 'kafkajs';
import { PaymentsMetrics } from '@payments/platform';
import type { KafkaConfig } from '@payments/platform';
import { BatchingSender } from './batching-sender';
import { ProducerHealth } from './client-health';
import { createKafka, unprefixed } from './kafka';

/** Why a reply was not sent: the label of `payments_replies_dropped_total`. */
export type ReplyDropReason = 'unknown_topic' | 'expired' | 'send_failed' | 'timeout';

/** How long one reply's send may take before it is given up (REPLY_SEND_TIMEOUT_MS). */
export const DEFAULT_REPLY_SEND_TIMEOUT_MS = 10_000;

/** How often the drops of one topic and reason are logged, at most: a deleted topic can drop thousands. */
const DROP_LOG_INTERVAL_MS = 10_000;

export interface ReplySenderOptions {
  kafka: KafkaConfig;
  /** The reply topics this service answers on (contract names; the prefix is added). */
  topics: readonly string[];
  /** Names the Kafka client (`<clientId>-<suffix>-replies`). */
  clientIdSuffix: string;
  sendTimeoutMs?: number;
  stallMs?: number;
}

/**
 * Sends replies to requesters, and never lets one requester's trouble reach anything else.
 * - Only to the reply topics named in the options: a `reply-topic` header naming another topic is
 *   dropped, so a request cannot make this service write where it likes.
 * - Each reply topic has a producer of its own. kafkajs refreshes metadata for every topic a
 *   producer ever sent to and fails every send while one of them is gone (tulios/kafkajs#1622);
 *   with one topic per producer a deleted reply topic fails only the replies to that topic.
 * - A reply is given up once its requester has stopped waiting (the request's `reply-by` header)
 *   or after `sendTimeoutMs`, and its producer retries a few times only: nothing retries forever.
 * Every reply not sent is counted (`payments_replies_dropped_total{topic,reason}`) and logged at
 * info, at most once per 10 s per topic and reason with the count since.
 */
export class ReplySender {
  private readonly logger = new Logger('ReplySender');
  private readonly kafka: Kafka;
  private readonly lanes = new Map<string, ReplyLane>();
  private readonly drops = new Map<string, { count: number; loggedAt: number }>();

  constructor(private readonly opts: ReplySenderOptions) {
    this.kafka = createKafka(opts.kafka, `-${opts.clientIdSuffix}-replies`, ['Producer']);
    for (const topic of opts.topics) {
      const name = opts.kafka.topicPrefix + topic;
      this.lanes.set(name, new ReplyLane(this.kafka, name, topic, opts));
    }
  }

  /** One health component per reply topic's producer. */
  get health(): ProducerHealth[] {
    return [...this.lanes.values()].map((l) => l.health);
  }

  async start(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((l) => l.connect()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((l) => l.disconnect()));
  }

  /**
   * Sends one reply, or gives it up; never throws. `deadline` (epoch ms) is when the requester
   * stops waiting. Resolves true once the broker has it.
   */
  async send(topic: string, message: Message, deadline: number, what: string): Promise<boolean> {
    const lane = this.lanes.get(topic);
    if (!lane) return this.drop(topic, 'unknown_topic', what);
    const remaining = deadline - Date.now();
    if (remaining <= 0) return this.drop(topic, 'expired', what);
    const outcome = await lane.send(
      message,
      Math.min(remaining, this.opts.sendTimeoutMs ?? DEFAULT_REPLY_SEND_TIMEOUT_MS),
    );
    if (outcome === 'sent') return true;
    return this.drop(topic, outcome.reason, `${what}: ${outcome.error}`);
  }

  private drop(topic: string, reason: ReplyDropReason, what: string): false {
    const label = this.lanes.get(topic)?.contractTopic ?? 'other';
    PaymentsMetrics.repliesDropped.inc({ topic: label, reason });
    // By label, not by the header's text: a request names the topic, so that text is unbounded.
    const key = `${label} ${reason}`;
    const entry = this.drops.get(key) ?? { count: 0, loggedAt: 0 };
    entry.count += 1;
    const now = Date.now();
    if (now - entry.loggedAt >= DROP_LOG_INTERVAL_MS) {
      const shown = unprefixed(this.opts.kafka, topic).slice(0, 200);
      this.logger.log(
        `reply dropped (${reason}) to ${shown}: ${what}${entry.count > 1 ? ` (${entry.count} dropped there for this reason since the last line)` : ''}`,
      );
      entry.count = 0;
      entry.loggedAt = now;
    }
    this.drops.set(key, entry);
    return false;
  }
}

type LaneOutcome = 'sent' | { reason: 'send_failed' | 'timeout'; error: string };

/** One reply topic's producer, the sends queued for it and its health. */
class ReplyLane {
  private producer?: Producer;
  private readonly sender = new BatchingSender(() => this.producer);
  readonly health: ProducerHealth;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    readonly contractTopic: string,
    opts: ReplySenderOptions,
  ) {
    // A failed reply is the requester's trouble (its topic is gone), not this service's: only a
    // send that never returns makes the producer not ready.
    this.health = new ProducerHealth(`kafka-producer:${contractTopic}`, {
      stallMs: opts.stallMs,
      judgeFailures: false,
    });
    this.producer = this.kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      metadataMaxAge: opts.kafka.metadataMaxAgeMs,
      // A few quick retries ride out a leader moving; a topic that is gone fails within seconds.
      retry: { retries: 4, initialRetryTime: 100, maxRetryTime: 1000 },
    });
  }

  async connect(): Promise<void> {
    await this.producer?.connect();
  }

  async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  async send(message: Message, timeoutMs: number): Promise<LaneOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<LaneOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ reason: 'timeout', error: `not sent within ${timeoutMs} ms` }), timeoutMs);
    });
    const sent = this.health.track(this.sender.send(this.topic, [message]), [this.topic]).then(
      (): LaneOutcome => 'sent',
      (err: unknown): LaneOutcome => ({
        reason: 'send_failed',
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    try {
      return await Promise.race([sent, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
