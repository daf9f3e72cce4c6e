import { KafkaMessage } from 'kafkajs';

/**
 * Handles messages one by one per key, keys side by side: messages with the same key one after
 * another in offset order (one aggregate's events stay in order), up to `concurrency` keys at a
 * time. Stops a lane at its first failure, and every lane once `stop()` says so or a failure
 * happened; returns the first failure (the rest of its lane is left undone).
 */
export async function handleByKey(
  messages: KafkaMessage[],
  concurrency: number,
  stop: () => boolean,
  handleOne: (message: KafkaMessage) => Promise<void>,
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
        if (failure !== undefined || stop()) return;
        try {
          await handleOne(message);
        } catch (err) {
          failure ??= err;
          return;
        }
      }
    }
  };
  const workers = Math.min(queue.length, concurrency);
  await Promise.all(Array.from({ length: workers }, runLanes));
  return failure;
}
