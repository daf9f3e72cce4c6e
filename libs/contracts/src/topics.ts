/**
 * Kafka topic names are a contract: operators' dashboards read them (ARCHITECTURE.md section 2).
 * A prefix (empty in production) lets test suites share one broker without seeing each other.
 */
export const Topics = {
  ordersCommands: 'orders.commands',
  payoutsCommands: 'payouts.commands',
  p2pCommands: 'p2p.commands',
  methodsQueries: 'methods.queries',
  providerCallbacksReceived: 'provider.callbacks.received',
  providerEvents: 'provider.events',
  ordersEvents: 'orders.events',
  payoutsEvents: 'payouts.events',
  p2pEvents: 'p2p.events',
  shopsSettings: 'shops.settings',
  merchantCallbacksCommands: 'merchant-callbacks.commands',
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  readonly config?: Readonly<Record<string, string>>;
}

/** Partitions bound the parallelism of each consumer group; 8 is plenty for two cores. */
const PARTITIONS = 8;

export function dlqTopic(topic: string): string {
  return `${topic}.dlq`;
}

/** Every topic the system uses, with its dead-letter topic for each consumed one. */
export function topicSpecs(prefix = ''): TopicSpec[] {
  const specs: TopicSpec[] = [];
  for (const name of Object.values(Topics)) {
    const compacted = name === Topics.shopsSettings;
    specs.push({
      name: prefix + name,
      partitions: compacted ? 1 : PARTITIONS,
      config: compacted ? { 'cleanup.policy': 'compact' } : undefined,
    });
    specs.push({ name: prefix + dlqTopic(name), partitions: 1 });
  }
  return specs;
}

/** Where one gateway instance reads its replies; one topic per instance avoids group rebalancing. */
export function replyTopic(prefix: string, instanceId: string): string {
  return `${prefix}gateway.replies.${instanceId}`;
}
