import { IHeaders, Kafka } from 'kafkajs';
import { dlqTopic } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
import { ProducerHealth } from './client-health';
import { TopicProducers } from './topic-producers';
import { producerConfig, unprefixed } from './kafka';

/** Where a message came from, as its dead letter records it. */
export interface DeadLetterSource {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
}

/**
 * Writes a message that cannot be handled to its topic's dead-letter topic, with the error and
 * where it came from in the headers. One producer per dead-letter topic (TopicProducers): one
 * deleted never stops dead-lettering to the others.
 */
export class DeadLetterer {
  private producers?: TopicProducers;

  constructor(
    private readonly kafka: KafkaConfig,
    private readonly groupId: string,
    private readonly health: ProducerHealth,
  ) {}

  start(client: Kafka): void {
    this.producers = new TopicProducers(client, producerConfig(this.kafka));
  }

  /** The producers, for tests (`KafkaTransport.unwrap`). */
  get topicProducers(): TopicProducers | undefined {
    return this.producers;
  }

  async send(
    source: DeadLetterSource,
    value: Buffer | null,
    headers: IHeaders | undefined,
    error: string,
    attempts: number,
  ): Promise<void> {
    // If this send fails the handler throws, the offset is not committed and the message comes back.
    const topic = dlqTopic(source.topic);
    const producer = await this.producers!.get(topic);
    await this.health.track(
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
              'dlq-original-topic': unprefixed(this.kafka, source.topic),
              'dlq-original-partition': String(source.partition),
              'dlq-original-offset': source.offset,
              'dlq-consumer-group': this.groupId,
              'dlq-attempts': String(attempts),
              'dlq-at': new Date().toISOString(),
            },
          },
        ],
      }),
      [topic],
    );
  }

  async disconnect(): Promise<void> {
    await this.producers?.disconnect();
  }
}
