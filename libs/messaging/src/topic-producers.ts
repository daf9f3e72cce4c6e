import { Kafka, Producer, ProducerConfig } from 'kafkajs';

/**
 * A kafkajs producer per topic, each made when its topic is first written. kafkajs refreshes the
 * metadata of every topic a producer ever sent to and fails all its sends while one of them is
 * missing (tulios/kafkajs#1622): with one topic per producer, a deleted topic stops only the sends
 * to it. For a handful of fixed topics (a service's dead-letter topics); not for topics named by
 * a message.
 */
export class TopicProducers {
  private readonly producers = new Map<string, Promise<Producer>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly config: ProducerConfig,
  ) {}

  /** The topic's producer, connected. A failed connect is not kept: the next call tries again. */
  get(topic: string): Promise<Producer> {
    let producer = this.producers.get(topic);
    if (!producer) {
      const made = this.kafka.producer(this.config);
      producer = made.connect().then(() => made);
      producer.catch(() => this.producers.delete(topic));
      this.producers.set(topic, producer);
    }
    return producer;
  }

  async disconnect(): Promise<void> {
    const all = [...this.producers.values()];
    this.producers.clear();
    await Promise.all(all.map((p) => p.then((producer) => producer.disconnect()).catch(() => undefined)));
  }
}
