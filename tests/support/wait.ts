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
      if (current.status === status) return current;
      // Not yet: what it is instead ends up in the timeout's message ("… in_progress: … it is need_action 1-07-05").
      const code = (current as { statusCode?: unknown }).statusCode;
      throw new Error(`it is ${String(current.status)}${code ? ` ${String(code)}` : ''}`);
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

/**
 * Waits until at least `n` envelopes of `key` are on `topic`, and returns them. A message that does
 * not match docs/asyncapi.yaml ends the wait at once, failing the test.
 */
export async function publishedCount(events: TopicReader, topic: string, key: string, n: number): Promise<any[]> {
  await events.waitFor(n, (m) => m.topic === topic && m.key === key);
  return published(events, topic, key);
}
