import { eventually, TopicReader } from '@payments/testing';

/** Polls `read` until what it answers has `status`, and returns that answer (an order, payout or P2P transaction). */
export function untilStatus<T extends { status?: unknown }>(
  read: () => Promise<T>,
  status: string,
  what: string,
  timeoutMs = 15000,
): Promise<T> {
  return eventually(
    async () => {
      const current = await read();
      return current.status === status ? current : undefined;
    },
    timeoutMs,
    what,
  );
}

/** The envelopes published so far on `topic` under `key` (an aggregate id), in order. */
export function published(events: TopicReader, topic: string, key: string): any[] {
  return events
    .on(topic)
    .filter((m) => m.key === key)
    .map((m) => m.json);
}

/** Waits until at least `n` envelopes of `key` are on `topic`, and returns them. */
export function publishedCount(events: TopicReader, topic: string, key: string, n: number): Promise<any[]> {
  return eventually(
    async () => (published(events, topic, key).length >= n ? published(events, topic, key) : undefined),
    15000,
    `${n} events of ${key}`,
  );
}
