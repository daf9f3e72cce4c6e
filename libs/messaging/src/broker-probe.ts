import type { KafkaConfig } from '@payments/platform';
import { Kafka } from 'kafkajs';
import type { FreshClientCheck } from './client-health';
import { kafkaClientOptions } from './kafka';

/** How long one answer of the check holds: liveness may be asked every few seconds. */
const CHECK_CACHE_MS = 10_000;

/**
 * In-sync replicas a partition needs before a fresh client could write to it with acks=all:
 * k8s/infra's topics say min.insync.replicas 2 (1 where a topic has one replica, as locally).
 */
const MIN_IN_SYNC = 2;

/**
 * Whether a fresh client — not the service's own, which may be the stuck one — reaches the broker
 * and finds the topics it needs with a leader and enough in-sync replicas for an acks=all write.
 * Asked only when a component has not been ready for the liveness grace (HealthRegistry): yes
 * means the fault is the process's own client, and a restart cures it; no (the broker away, a
 * topic deleted, too few replicas in sync) means a restart would change nothing.
 */
export function freshClientCheck(config: KafkaConfig): FreshClientCheck {
  const cache = new Map<string, { at: number; answer: Promise<boolean> }>();
  return (topics) => {
    const key = [...topics].sort().join(',');
    const now = Date.now();
    const cached = cache.get(key);
    if (cached && now - cached.at < CHECK_CACHE_MS) return cached.answer;
    const answer = (async () => {
      const options = kafkaClientOptions(config, '-health-check');
      const admin = new Kafka({
        ...options,
        retry: { retries: 0 },
        connectionTimeout: 2000,
        requestTimeout: 3000,
      }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) return false;
        if (topics.length === 0) return true;
        const { topics: found } = await admin.fetchTopicMetadata({ topics: [...topics] });
        return (
          found.length === topics.length &&
          found.every(
            (t) =>
              t.partitions.length > 0 &&
              t.partitions.every((p) => p.leader >= 0 && p.isr.length >= Math.min(MIN_IN_SYNC, p.replicas.length)),
          )
        );
      } catch {
        return false;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    })();
    cache.set(key, { at: now, answer });
    return answer;
  };
}
