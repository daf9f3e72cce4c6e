import { audienceCommandTopics } from './audiences';

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
  ledgerCommands: 'ledger.commands',
  // Balance changes, for the merchant's events feed (decision 313).
  ledgerEvents: 'ledger.events',
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

/**
 * A command is kept 7 days, in segments of a day (decision 359), whatever the broker's defaults: it
 * stays readable at most 8 days (retention applies to whole segments), the bound the answers kept
 * for commands handled again rely on (the ledger's refusals, `LEDGER_HOLD_REFUSAL_KEEP_MS`, 15 days).
 */
export const COMMAND_TOPIC_CONFIG: Readonly<Record<string, string>> = Object.freeze({
  'retention.ms': String(7 * 86_400_000),
  'segment.ms': String(86_400_000),
});

/**
 * Whether a contract topic carries commands (`<service>.commands`, `<service>.<audience>-commands`).
 * `methods.queries` does not: a query handled again reads, and no answer is kept for it.
 */
export function isCommandTopic(name: string): boolean {
  return name.endsWith('.commands') || name.endsWith('-commands');
}

/** Every topic the system uses, with its dead-letter topic for each consumed one. */
export function topicSpecs(prefix = ''): TopicSpec[] {
  const specs: TopicSpec[] = [];
  for (const name of [...Object.values(Topics), ...audienceCommandTopics()]) {
    const compacted = name === Topics.shopsSettings;
    specs.push({
      name: prefix + name,
      partitions: compacted ? 1 : PARTITIONS,
      config: compacted ? { 'cleanup.policy': 'compact' } : isCommandTopic(name) ? COMMAND_TOPIC_CONFIG : undefined,
    });
    specs.push({ name: prefix + dlqTopic(name), partitions: 1 });
  }
  return specs;
}

/**
 * The requesters of request-reply, each with one reply topic its instances share (decision 251):
 * a requester instance reads the whole topic and keeps the replies whose correlation id it waits
 * for. Reply topics are created once, like every contract topic, and never deleted by an instance
 * that stops, so a rollout (new instance ids) neither leaves topics behind nor deletes one a
 * service is still answering on.
 */
export const ReplyTopics = {
  gateway: 'gateway.replies',
  backoffice: 'backoffice.replies',
  checkout: 'checkout.replies',
  // The payouts service asks the ledger for a payout's hold before it accepts the payout (decision 273).
  payouts: 'payouts.replies',
  // The orders service asks the ledger for a refund's hold before it accepts the refund (decision 276).
  orders: 'orders.replies',
  /** Click's Prepare and Complete wait for the order's answer (libs/providers/click). */
  'callbacks-ingest': 'callbacks-ingest.replies',
} as const;

export type Requester = keyof typeof ReplyTopics;

/** Partitions of a reply topic: every instance of the requester reads all of them. */
const REPLY_PARTITIONS = 4;

/**
 * A reply matters for seconds (the requester's timeout); ten minutes of them are kept, in segments
 * of five so that retention applies.
 */
const REPLY_TOPIC_CONFIG = { 'retention.ms': '600000', 'segment.ms': '300000' } as const;

/** Where the instances of one requester read their replies. */
export function replyTopic(prefix: string, requester: Requester): string {
  return `${prefix}${ReplyTopics[requester]}`;
}

/** Every reply topic, with its partitions and settings (created with the contract topics). */
export function replyTopicSpecs(prefix = ''): TopicSpec[] {
  return Object.values(ReplyTopics).map((name) => ({
    name: prefix + name,
    partitions: REPLY_PARTITIONS,
    config: REPLY_TOPIC_CONFIG,
  }));
}
