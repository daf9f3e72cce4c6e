import { randomUUID } from 'node:crypto';
import { Consumer, IHeaders } from 'kafkajs';
import { checkTopicMessage, prepareTopicChecks, recordChecked } from './asyncapi-messages';
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
 * as it runs. Tests assert on what arrived; `stop()` disconnects it. Every message read is checked
 * against docs/asyncapi.yaml: one that does not match fails the test that reads from the reader
 * (`on`, `waitFor` and `stop` throw the mismatch). `{ contract: false }` is for the messaging
 * library's own tests, which publish synthetic `test.*` messages on scratch topics on purpose.
 */
export class TopicReader {
  readonly messages: ReadMessage[] = [];
  private readonly mismatches: Error[] = [];
  /** `topic/partition/offset` of every message kept: a group that rejoins after a stall is sent
   * again what it had read but not yet committed, and a test must see each message once. */
  private readonly seen = new Set<string>();
  private constructor(private readonly consumer: Consumer) {}

  static async start(topics: string[], options: { contract?: boolean } = {}): Promise<TopicReader> {
    const checkContract = options.contract ?? true;
    if (checkContract) prepareTopicChecks(topics);
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
        const position = `${topic}/${partition}/${message.offset}`;
        if (reader.seen.has(position)) return;
        reader.seen.add(position);
        const value = message.value?.toString() ?? null;
        let json: any;
        try {
          json = value === null ? undefined : JSON.parse(value);
        } catch {
          json = undefined;
        }
        const read: ReadMessage = {
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value,
          headers: headersOf(message.headers),
          json,
        };
        if (checkContract) {
          try {
            recordChecked(checkTopicMessage(read));
          } catch (err) {
            reader.mismatches.push(err as Error);
          }
        }
        reader.messages.push(read);
      },
    });
    await joined;
    return reader;
  }

  /** Throws the first message read that docs/asyncapi.yaml does not document. */
  private checked(): void {
    if (this.mismatches.length > 0) throw this.mismatches[0];
  }

  on(topic: string): ReadMessage[] {
    this.checked();
    return this.messages.filter((m) => m.topic === topic);
  }

  /** Waits until `count` messages match `filter` (all messages by default) and returns them. */
  async waitFor(
    count: number,
    filter: (m: ReadMessage) => boolean = () => true,
    timeoutMs = 15000,
  ): Promise<ReadMessage[]> {
    const found = await eventually(
      async () => {
        // A mismatch ends the wait at once; checked() below throws it.
        if (this.mismatches.length > 0) return [];
        const found = this.messages.filter(filter);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} messages`,
    );
    this.checked();
    return found;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    this.checked();
  }
}
