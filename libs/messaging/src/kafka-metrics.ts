import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash } from 'node:crypto';
import { Admin, AssignerProtocol } from 'kafkajs';
import { Client } from 'pg';
import { Gauge } from 'prom-client';
import { topicSpecs } from '@payments/contracts';
import { metricsRegistry, PaymentsMetrics } from '@payments/platform';
import type { KafkaConfig } from '@payments/platform';
import { createKafka, unprefixed } from './kafka';
import { lagSeconds, OffsetHistory } from './offset-history';

export interface KafkaMetricsOptions {
  kafka: KafkaConfig;
  /** The collectors of the system elect one of them through an advisory lock in this database. */
  databaseUrl: string;
  /** How often offsets are read (kafka_exporter's default scrape is 15 s; lag wants a finer grain). */
  intervalMs?: number;
  /** The consumer groups to watch, contract names (the services' *_CONSUMER_GROUP). */
  groups: string[];
}

/** The services' consumer groups, as their configurations name them by default. */
export const DEFAULT_CONSUMER_GROUPS = [
  'orders',
  'payouts',
  'p2p',
  'methods',
  'merchant-callbacks',
  'ledger',
  'ledger-events',
];

type PartitionLabels = 'consumergroup' | 'topic' | 'partition';
const gauge = <L extends string>(name: string, help: string, labelNames: L[]) =>
  new Gauge<L>({ name, help, labelNames, registers: [metricsRegistry] });

/** kafka_exporter's names and labels, so operators' existing Grafana panels read these unchanged. */
const KafkaGauges = {
  lag: gauge<PartitionLabels>(
    'kafka_consumergroup_lag',
    'Messages of a partition the consumer group has not committed yet (high watermark minus committed offset).',
    ['consumergroup', 'topic', 'partition'],
  ),
  lagSum: gauge<'consumergroup' | 'topic'>(
    'kafka_consumergroup_lag_sum',
    'kafka_consumergroup_lag summed over the partitions of a topic.',
    ['consumergroup', 'topic'],
  ),
  lagSeconds: gauge<PartitionLabels>(
    'kafka_consumergroup_lag_seconds',
    'Age of the oldest message of a partition the consumer group has not processed (0 when caught up).',
    ['consumergroup', 'topic', 'partition'],
  ),
  currentOffset: gauge<PartitionLabels>(
    'kafka_consumergroup_current_offset',
    'Offset the consumer group committed on a partition.',
    ['consumergroup', 'topic', 'partition'],
  ),
  topicCurrentOffset: gauge<'topic' | 'partition'>(
    'kafka_topic_partition_current_offset',
    'High watermark of a partition: the offset the next message will get.',
    ['topic', 'partition'],
  ),
  topicOldestOffset: gauge<'topic' | 'partition'>(
    'kafka_topic_partition_oldest_offset',
    'Oldest offset of a partition still retained.',
    ['topic', 'partition'],
  ),
};

interface TopicOffsets {
  partition: number;
  high: bigint;
  low: bigint;
}

/**
 * Consumer lag, time lag and dead-letter depth, read from the broker (committed offsets and high
 * watermarks through kafkajs admin) every few seconds in the background: a scrape only reads the
 * last values and never waits on Kafka, and nothing here touches message handling.
 *
 * These families describe the system, not a process, so exactly one collector exports them: every
 * collector tries a PostgreSQL session advisory lock and only its holder reads Kafka; the others
 * export none of these series (a sum over instances never counts a group twice). When the holder
 * stops or loses its connection, another takes over at its next refresh.
 */
export class KafkaMetricsCollector {
  private readonly logger = new Logger('KafkaMetrics');
  private readonly lockKey: string;
  private readonly history = new Map<string, OffsetHistory>();
  private admin?: Admin;
  private lock?: Client;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private failures = 0;
  /** Whether the kafka_* series of this process are this collector's (it must clear them, no one else). */
  private exported = false;

  constructor(private readonly opts: KafkaMetricsOptions) {
    // One election per system (topic prefix), whichever database name the services share.
    this.lockKey = BigInt.asIntN(
      64,
      BigInt('0x' + createHash('sha256').update(`kafka-metrics:${opts.kafka.topicPrefix}`).digest('hex').slice(0, 16)),
    ).toString();
  }

  async start(): Promise<void> {
    this.admin = createKafka(this.opts.kafka, '-metrics').admin();
    await this.admin.connect();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.clear();
    await this.lock?.end().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.refresh().finally(() => this.schedule(this.opts.intervalMs ?? 5000));
    }, delayMs);
    this.timer.unref();
  }

  /** One reading: elect, then read Kafka and replace every series. Never throws. */
  private async refresh(): Promise<void> {
    try {
      if (!(await this.holdLock())) {
        this.clear();
        return;
      }
      await this.read();
      if (this.failures > 0) this.logger.log(`reading Kafka offsets again after ${this.failures} failed tries`);
      this.failures = 0;
    } catch (err) {
      // No data is better than stale data: an alert on absent series notices.
      this.clear();
      if (this.failures++ % 12 === 0)
        this.logger.warn(`could not read Kafka offsets for /metrics: ${(err as Error).message}`);
    }
  }

  private async holdLock(): Promise<boolean> {
    if (this.lock) {
      try {
        // Held on this session: alive means still ours.
        await this.lock.query('SELECT 1');
        return true;
      } catch {
        await this.dropLock();
      }
    }
    const client = new Client({ connectionString: this.opts.databaseUrl, application_name: 'kafka-metrics' });
    client.on('error', () => void this.dropLock());
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        this.lockKey,
      ]);
      if (rows[0].locked) {
        this.lock = client;
        return true;
      }
    } catch {
      // Treated as not elected; tried again at the next refresh.
    }
    await client.end().catch(() => undefined);
    return false;
  }

  private async dropLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.end().catch(() => undefined);
  }

  /**
   * The contract topics (and their .dlq) and the configured groups only: a broker shared with
   * other systems (or other test runs) adds neither requests nor series, and the labels stay
   * bounded. A topic that cannot be read (not created yet, being deleted) is left out of this
   * reading alone.
   */
  private async read(): Promise<void> {
    const admin = this.admin!;
    const { kafka } = this.opts;
    const existing = new Set(await admin.listTopics());
    const topics = topicSpecs(kafka.topicPrefix)
      .map((s) => s.name)
      .filter((t) => existing.has(t));
    const groups = this.opts.groups.map((g) => kafka.topicPrefix + g);
    const [read, committed] = await Promise.all([
      Promise.all(
        topics.map(async (topic) => [topic, await topicOffsets(admin, topic).catch(() => undefined)] as const),
      ),
      groupOffsets(admin, groups, topics),
    ]);
    const offsets = read.filter((entry): entry is readonly [string, TopicOffsets[]] => entry[1] !== undefined);
    const now = Date.now();
    const byTopic = new Map(offsets);
    clearKafkaGauges();
    this.exported = true;

    for (const [topic, partitions] of offsets) {
      const name = unprefixed(kafka, topic);
      for (const p of partitions) {
        this.historyOf(topic, p.partition).record(p.high, now);
        const labels = { topic: name, partition: String(p.partition) };
        KafkaGauges.topicCurrentOffset.set(labels, Number(p.high));
        KafkaGauges.topicOldestOffset.set(labels, Number(p.low));
      }
      if (name.endsWith('.dlq'))
        PaymentsMetrics.deadLetterMessages.set(
          { topic: name },
          partitions.reduce((sum, p) => sum + Number(p.high - p.low), 0),
        );
    }

    for (const [groupId, groupTopics] of committed) {
      const consumergroup = unprefixed(kafka, groupId);
      for (const { topic, partitions } of groupTopics) {
        const watermarks = byTopic.get(topic);
        if (!watermarks) continue;
        const name = unprefixed(kafka, topic);
        let sum = 0;
        for (const p of partitions) {
          const w = watermarks.find((x) => x.partition === p.partition);
          if (!w) continue;
          const offset = BigInt(p.offset);
          // Nothing committed yet: the group will read everything retained.
          const from = offset < 0n ? w.low : offset;
          const lag = w.high > from ? w.high - from : 0n;
          const labels = { consumergroup, topic: name, partition: String(p.partition) };
          if (offset >= 0n) KafkaGauges.currentOffset.set(labels, Number(offset));
          KafkaGauges.lag.set(labels, Number(lag));
          KafkaGauges.lagSeconds.set(labels, lagSeconds(this.historyOf(topic, p.partition), from, w.high, now));
          sum += Number(lag);
        }
        KafkaGauges.lagSum.set({ consumergroup, topic: name }, sum);
      }
    }
  }

  private clear(): void {
    if (!this.exported) return;
    this.exported = false;
    clearKafkaGauges();
  }

  private historyOf(topic: string, partition: number): OffsetHistory {
    const key = `${topic}\u0000${partition}`;
    let h = this.history.get(key);
    if (!h) this.history.set(key, (h = new OffsetHistory()));
    return h;
  }
}

/**
 * Each group's committed offsets on the topics it consumes: those its running members subscribe
 * to, and those it has committed on (a stopped group has no members, and its lag matters most).
 */
async function groupOffsets(
  admin: Admin,
  groups: string[],
  topics: string[],
): Promise<(readonly [string, { topic: string; partitions: { partition: number; offset: string }[] }[]])[]> {
  if (groups.length === 0 || topics.length === 0) return [];
  const described = await admin.describeGroups(groups);
  const subscribed = new Map<string, Set<string>>();
  for (const g of described.groups) {
    const set = new Set<string>();
    for (const m of g.members) {
      const meta = m.memberMetadata?.length ? AssignerProtocol.MemberMetadata.decode(m.memberMetadata) : null;
      for (const t of meta?.topics ?? []) set.add(t);
    }
    subscribed.set(g.groupId, set);
  }
  return Promise.all(
    groups.map(async (groupId) => {
      const all = await admin.fetchOffsets({ groupId, topics }).catch(() => []);
      const consumed = all.filter(
        (t) => subscribed.get(groupId)?.has(t.topic) || t.partitions.some((p) => BigInt(p.offset) >= 0n),
      );
      return [groupId, consumed] as const;
    }),
  );
}

async function topicOffsets(admin: Admin, topic: string): Promise<TopicOffsets[]> {
  const rows = await admin.fetchTopicOffsets(topic);
  return rows.map((r) => ({ partition: r.partition, high: BigInt(r.high), low: BigInt(r.low) }));
}

function clearKafkaGauges(): void {
  for (const g of Object.values(KafkaGauges)) g.reset();
  PaymentsMetrics.deadLetterMessages.reset();
}

/**
 * Runs the elected Kafka collector for as long as the app runs (the gateway runs it: it is always
 * up, and the operators' console it serves reads the same numbers). Off with METRICS_ENABLED=false.
 */
export async function startKafkaMetrics(app: NestFastifyApplication, opts: KafkaMetricsOptions): Promise<void> {
  const collector = new KafkaMetricsCollector(opts);
  await collector.start();
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', async () => collector.stop());
}
