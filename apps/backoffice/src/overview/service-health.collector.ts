import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Admin, Consumer } from 'kafkajs';
import { healthTopicSpec, parseEnvelope, ServiceHealthReport, serviceHealthReport } from '@payments/contracts';
import { bestEffort, ConsumerRestarts, consumerConfig, createKafka, restartAfterCrash } from '@payments/messaging';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';

/** One instance of a service as the overview shows it. */
export interface ServiceInstanceHealth {
  service: string;
  instanceId: string;
  /** `stale`: no report for three of its intervals (stopped without saying so, or cannot reach the broker). */
  state: 'ready' | 'not_ready' | 'not_live' | 'stale';
  /** The components that are not ready, and why; empty when ready. */
  problems: { component: string; detail: string; since?: string }[];
  repliesDropped: number;
  reportedAt: string;
  secondsSinceReport: number;
}

/** A stale instance stays on the overview this long, then it is forgotten (it died; its key expires in a day). */
const FORGET_AFTER_MS = 60 * 60_000;

/**
 * Every instance's health, read from `services.health` (each service's HealthReporter): the
 * compacted topic read from its start gives each instance's last report, then every new one. The
 * group is this backoffice instance's own and commits nothing.
 */
@Injectable()
export class ServiceHealthCollector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ServiceHealth');
  private readonly reports = new Map<string, ServiceHealthReport>();
  private consumer?: Consumer;
  private restarts?: ConsumerRestarts;
  private admin?: Admin;
  private readonly group: string;

  constructor(@Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig) {
    this.group = `${config.kafka.topicPrefix}backoffice.health.${config.instanceId}`;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.consumer) return;
    const { kafka } = this.config;
    const client = createKafka(kafka, '-health-reader');
    const consumer = (this.consumer = client.consumer(
      consumerConfig(kafka, {
        groupId: this.group,
        sessionTimeout: 10_000,
        heartbeatInterval: 1000,
        maxWaitTimeInMs: 500,
      }),
    ));
    this.admin = client.admin();
    consumer.on(consumer.events.CRASH, (e) =>
      this.logger.warn(`health reader crashed: ${e.payload.error.message} (restart: ${e.payload.restart})`),
    );
    const start = async () => {
      await consumer.subscribe({ topic: healthTopicSpec(kafka.topicPrefix).name, fromBeginning: true });
      await consumer.run({ autoCommit: false, eachMessage: async ({ message }) => this.take(message) });
    };
    this.restarts = restartAfterCrash(consumer, {
      start,
      stopping: () => this.consumer !== consumer,
      log: (line) => this.logger.warn(`health reader: ${line}`),
    });
    // The overview works without it: a broker that is away now only leaves the table empty.
    try {
      await consumer.connect();
      await start();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.logger.warn(`health reports unreadable: ${why}`);
      // Started again like a consumer kafkajs gave up on, until the broker answers.
      await consumer.disconnect().catch(() => undefined);
      this.restarts.now(why);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.restarts?.cancel();
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
    const admin = this.admin;
    if (admin) {
      await bestEffort(admin.connect().then(() => admin.deleteGroups([this.group])));
      await admin.disconnect().catch(() => undefined);
    }
    this.consumer = undefined;
  }

  /** Every instance known, by service and instance id. */
  instances(now = Date.now()): ServiceInstanceHealth[] {
    const rows: ServiceInstanceHealth[] = [];
    for (const [key, r] of this.reports) {
      const age = now - Date.parse(r.reportedAt);
      if (age > FORGET_AFTER_MS) {
        this.reports.delete(key);
        continue;
      }
      const stale = age > 3 * r.intervalMs;
      rows.push({
        service: r.service,
        instanceId: r.instanceId,
        state: stale ? 'stale' : !r.live ? 'not_live' : r.ready ? 'ready' : 'not_ready',
        problems: Object.entries(r.components)
          .filter(([, c]) => !c.ready)
          .map(([component, c]) => ({ component, detail: c.detail, ...(c.since ? { since: c.since } : {}) })),
        repliesDropped: r.repliesDropped,
        reportedAt: r.reportedAt,
        secondsSinceReport: Math.max(0, Math.round(age / 1000)),
      });
    }
    return rows.sort((a, b) => a.service.localeCompare(b.service) || a.instanceId.localeCompare(b.instanceId));
  }

  private take(message: { key: Buffer | null; value: Buffer | null }): void {
    const key = message.key?.toString();
    if (!key) return;
    if (message.value === null) {
      this.reports.delete(key);
      return;
    }
    const parsed = parseEnvelope(message.value);
    if (parsed.kind !== 'ok') return;
    const report = serviceHealthReport.safeParse(parsed.envelope.payload);
    if (report.success) this.reports.set(key, report.data);
  }
}
