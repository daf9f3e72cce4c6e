import type { BrokerProbe, KafkaConfig } from '@payments/platform';
import { Kafka } from 'kafkajs';
import { kafkaClientOptions } from './kafka';

/** How long one answer of the probe holds: liveness may be asked every few seconds. */
const PROBE_CACHE_MS = 10_000;

/**
 * Whether a fresh client reaches the broker and gets cluster metadata: asked only when a
 * component has not been ready for the liveness grace, to tell "the broker is away" (restarting
 * would not help) from "this process's client is stuck" (a restart is the cure).
 */
export function brokerProbe(config: KafkaConfig): BrokerProbe {
  let cached: { at: number; answer: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < PROBE_CACHE_MS) return cached.answer;
    const answer = (async () => {
      const options = kafkaClientOptions(config, '-health-probe');
      const admin = new Kafka({ ...options, retry: { retries: 0 } }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0;
      } catch {
        return false;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    })();
    cached = { at: now, answer };
    return answer;
  };
}
