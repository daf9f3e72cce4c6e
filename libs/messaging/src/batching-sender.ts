import { CompressionTypes, Message, Producer } from 'kafkajs';
import { byTopic } from './kafka';

interface Queued {
  topic: string;
  messages: Message[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Sends through one idempotent producer (one request in flight, so the broker keeps each
 * partition's order) without making concurrent callers wait in line: what is asked for while a
 * produce request is in flight goes out together in the next one. There is no linger: a lone
 * message leaves at once, and under load batches grow by themselves. Each caller's promise
 * settles with the request that carried its messages (acks from all replicas).
 */
export class BatchingSender {
  private queue: Queued[] = [];
  private flushing = false;

  constructor(
    private readonly producer: () => Producer | undefined,
    private readonly maxMessagesPerRequest = 1000,
  ) {}

  send(topic: string, messages: Message[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.take();
        const producer = this.producer();
        try {
          if (!producer) throw new Error('producer not connected');
          await producer.sendBatch({ topicMessages: byTopic(batch), acks: -1, compression: CompressionTypes.None });
          for (const q of batch) q.resolve();
        } catch (err) {
          for (const q of batch) q.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The queued sends, oldest first, up to the request size (a larger single send goes alone). */
  private take(): Queued[] {
    let n = 0;
    let count = 0;
    while (n < this.queue.length && (n === 0 || count + this.queue[n].messages.length <= this.maxMessagesPerRequest)) {
      count += this.queue[n].messages.length;
      n += 1;
    }
    return this.queue.splice(0, n);
  }
}
