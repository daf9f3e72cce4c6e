import { randomUUID } from 'node:crypto';
import { Consumer, IHeaders } from 'kafkajs';
import { eventually, testKafka } from './infra';

export interface ReadMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
  /** The value parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v === undefined) continue;
    out[k] = (Array.isArray(v) ? v[0] : v)?.toString() ?? '';
  }
  return out;
}

/**
 * Reads topics from the beginning into `messages`, with a consumer group of its own, for as long
 * as it runs. Tests assert on what arrived; `stop()` disconnects it.
 */
export class TopicReader {
  readonly messages: ReadMessage[] = [];
  private constructor(private readonly consumer: Consumer) {}

  static async start(topics: string[]): Promise<TopicReader> {
    const consumer = testKafka('topic-reader').consumer({
      groupId: `reader-${randomUUID()}`,
      maxWaitTimeInMs: 200,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
    });
    const reader = new TopicReader(consumer);
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const value = message.value?.toString() ?? null;
        let json: any;
        try {
          json = value === null ? undefined : JSON.parse(value);
        } catch {
          json = undefined;
        }
        reader.messages.push({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value,
          headers: headersOf(message.headers),
          json,
        });
      },
    });
    await joined;
    return reader;
  }

  on(topic: string): ReadMessage[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  /** Waits until `count` messages match `filter` (all messages by default) and returns them. */
  async waitFor(
    count: number,
    filter: (m: ReadMessage) => boolean = () => true,
    timeoutMs = 15000,
  ): Promise<ReadMessage[]> {
    return eventually(
      async () => {
        const found = this.messages.filter(filter);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} messages`,
    );
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
