import { z } from 'zod';
import type { TopicSpec } from './topics';

/**
 * Where every instance of every service reports its health (readiness, liveness, each component
 * and why, replies it dropped) every few seconds, keyed by `<service>/<instance id>`; a stopping
 * instance writes a tombstone. Compacted, so a reader from the start gets each instance's last
 * report; deleted after a day, so instances that died without a tombstone go too. Not a contract
 * topic: nothing acts on it but what operators read (the console's overview).
 */
export const HEALTH_TOPIC = 'services.health';

export const HEALTH_REPORTED = 'service.health_reported';

export function healthTopicSpec(prefix = ''): TopicSpec {
  return {
    name: prefix + HEALTH_TOPIC,
    partitions: 1,
    config: { 'cleanup.policy': 'compact,delete', 'retention.ms': '86400000', 'segment.ms': '3600000' },
  };
}

/** The key of an instance's reports. */
export function healthReportKey(service: string, instanceId: string): string {
  return `${service}/${instanceId}`;
}

export const serviceHealthReport = z
  .object({
    service: z.string().min(1),
    instanceId: z.string().min(1),
    ready: z.boolean(),
    live: z.boolean(),
    components: z.record(
      z.string(),
      z.object({ ready: z.boolean(), detail: z.string(), since: z.string().optional() }),
    ),
    repliesDropped: z.number().int().nonnegative().describe('Replies this instance gave up since it started'),
    startedAt: z.string(),
    reportedAt: z.string(),
    intervalMs: z
      .number()
      .int()
      .positive()
      .describe('How often it reports: a report older than three of these is stale'),
  })
  .describe("One instance's health, as its /health/ready and /health/live would answer");
export type ServiceHealthReport = z.infer<typeof serviceHealthReport>;
