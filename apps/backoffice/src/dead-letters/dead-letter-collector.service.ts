import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { parseEnvelope, topicSpecs } from '@payments/contracts';
import { cardNumbersIn } from '@payments/methods-domain';
import {
  ConsumerRestarts,
  consumerConfig,
  createKafka,
  prefixed,
  restartAfterCrash,
  unprefixed,
} from '@payments/messaging';
import type { Consumer, IHeaders } from 'kafkajs';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { DeadLetterRepository } from './dead-letter.repository';

/** The consumer group that copies dead letters for operators; its offsets say what is copied. */
export const DEAD_LETTER_GROUP = 'backoffice-dead-letters';

const header = (headers: IHeaders | undefined, name: string): string | null => {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? null : one.toString();
};

/**
 * Card numbers never reach Kafka in clear (the card vault tokenizes them where they arrive), but a
 * dead letter is whatever a consumer gave up on: before it is stored, every card number in it is
 * masked (BIN and last 4), and such a message is kept as text only, never redriven.
 */
function maskCards(text: string): { text: string; masked: boolean } {
  // Inside longer numbers too (decision 258): masking more than the input rule refuses is the safe side.
  const found = cardNumbersIn(text, { insideLongerNumbers: true });
  if (!found.length) return { text, masked: false };
  let out = '';
  let at = 0;
  for (const f of [...found].sort((a, b) => a.start - b.start)) {
    const digits = text.slice(f.start, f.end).replace(/\D/g, '');
    out +=
      text.slice(at, f.start) + digits.slice(0, 6) + '*'.repeat(Math.max(0, digits.length - 10)) + digits.slice(-4);
    at = f.end;
  }
  return { text: out + text.slice(at), masked: true };
}

/**
 * Reads every contract `.dlq` topic (one consumer group shared by the backoffice instances) and keeps
 * each dead letter in the backoffice's table, with its error and origin from the headers the consumer
 * that gave up wrote (decision 156). Kafka keeps the messages; the table keeps what operators did.
 */
@Injectable()
export class DeadLetterCollector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DeadLetters');
  private consumer?: Consumer;
  private restarts?: ConsumerRestarts;

  constructor(
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
    private readonly deadLetters: DeadLetterRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { kafka } = this.config;
    const topics = topicSpecs(kafka.topicPrefix)
      .map((t) => t.name)
      .filter((name) => name.endsWith('.dlq'));
    const consumer = (this.consumer = createKafka(kafka, '-dead-letters').consumer(
      consumerConfig(kafka, {
        groupId: prefixed(kafka, DEAD_LETTER_GROUP),
        sessionTimeout: 10_000,
        heartbeatInterval: 1_000,
        maxWaitTimeInMs: 500,
      }),
    ));
    consumer.on(consumer.events.CRASH, (e) =>
      this.logger.error(`dead-letter consumer crashed: ${e.payload.error.message} (restart: ${e.payload.restart})`),
    );
    const start = async () => {
      await consumer.subscribe({ topics, fromBeginning: true });
      await this.run(consumer);
    };
    this.restarts = restartAfterCrash(consumer, {
      start,
      stopping: () => this.consumer !== consumer,
      log: (line) => this.logger.warn(`dead-letter consumer: ${line}`),
    });
    await consumer.connect();
    await start();
  }

  private async run(consumer: Consumer): Promise<void> {
    const { kafka } = this.config;
    await consumer.run({
      autoCommit: true,
      eachMessage: async ({ topic, partition, message }) => {
        const value = maskCards(message.value?.toString('utf8') ?? '');
        const h = message.headers;
        // The origin is the DLQ topic's own name (decision 177): the header is only compared with it.
        const dlq = unprefixed(kafka, topic);
        const originalTopic = dlq.replace(/\.dlq$/, '');
        const claimed = header(h, 'dlq-original-topic');
        const misnamed = claimed !== null && claimed !== originalTopic;
        const parsed = value.masked || misnamed ? undefined : parseEnvelope(message.value);
        const error = maskCards(header(h, 'dlq-error') ?? 'unknown').text;
        const why = value.masked
          ? ' (card numbers masked by the backoffice: not redrivable)'
          : misnamed
            ? ` (its dlq-original-topic header named ${JSON.stringify(maskCards(claimed.slice(0, 200)).text)}, not ${originalTopic}: not redrivable)`
            : '';
        await this.deadLetters.record({
          topic: dlq,
          partition,
          offset: message.offset,
          originalTopic,
          key: message.key ? maskCards(message.key.toString()).text : null,
          envelope: parsed?.kind === 'ok' ? parsed.envelope : null,
          raw: parsed?.kind === 'ok' ? null : value.text.slice(0, 10_000),
          error: error + why,
          consumerGroup: header(h, 'dlq-consumer-group'),
          attempts: Number(header(h, 'dlq-attempts') ?? 0) || 0,
          deadLetteredAt: new Date(header(h, 'dlq-at') ?? Number(message.timestamp)),
        });
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.restarts?.cancel();
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
  }
}
