import {
  BeforeApplicationShutdown,
  DynamicModule,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Partitioners, Producer } from 'kafkajs';
import { envelope, HEALTH_REPORTED, healthReportKey, healthTopicSpec, ServiceHealthReport } from '@payments/contracts';
import { HealthRegistry, PaymentsMetrics } from '@payments/platform';
import type { KafkaConfig } from '@payments/platform';
import { bestEffort } from './best-effort';
import { createKafka } from './kafka';

export interface HealthReportingOptions {
  kafka: KafkaConfig;
  /** The service's name: `orders`, `gateway`… */
  service: string;
  instanceId: string;
  /** HEALTH_REPORT_INTERVAL_MS. */
  intervalMs: number;
}

const HEALTH_REPORTING_OPTIONS = Symbol('HEALTH_REPORTING_OPTIONS');

/**
 * Publishes this instance's health to `services.health` every `intervalMs` (and at once when its
 * readiness changes), for the console's overview, which sees every instance of every service this
 * way — also those Kubernetes gives no address (orders, payouts…) and those it took out of their
 * Service for not being ready. Its producer is its own and retries briefly: a report that cannot
 * go out is skipped, and the reader sees the instance's last report grow old, which says as much.
 * A stopping instance writes a tombstone, so it leaves the overview.
 */
@Injectable()
export class HealthReporter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('HealthReporter');
  private producer?: Producer;
  private timer?: NodeJS.Timeout;
  /** The report being sent, if any: the tombstone waits for it, so it cannot land after. */
  private sending?: Promise<void>;
  private lastReady?: boolean;
  private lastSent = 0;
  private readonly startedAt = new Date().toISOString();
  private readonly topic: string;
  private readonly key: string;

  constructor(
    @Inject(HEALTH_REPORTING_OPTIONS) private readonly opts: HealthReportingOptions,
    private readonly registry: HealthRegistry,
  ) {
    this.topic = healthTopicSpec(opts.kafka.topicPrefix).name;
    this.key = healthReportKey(opts.service, opts.instanceId);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Idempotent: a hybrid Nest app runs bootstrap hooks once per part.
    if (this.producer) return;
    this.producer = createKafka(this.opts.kafka, '-health', ['Producer']).producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      metadataMaxAge: this.opts.kafka.metadataMaxAgeMs,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    });
    await this.producer.connect().catch((e: Error) => this.logger.warn(`not connected yet: ${e.message}`));
    // The first report once the app has finished starting (its consumers joined).
    setTimeout(() => void this.report(), 1000).unref();
    this.timer = setInterval(() => void this.report(), Math.max(250, Math.floor(this.opts.intervalMs / 2)));
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    const producer = this.producer;
    this.producer = undefined;
    if (!producer) return;
    await bestEffort(this.sending ?? Promise.resolve());
    await bestEffort(producer.send({ topic: this.topic, acks: -1, messages: [{ key: this.key, value: null }] }));
    await producer.disconnect().catch(() => undefined);
  }

  /** Sends a report when one is due or readiness changed; one at a time. */
  private report(): Promise<void> {
    if (!this.producer || this.sending) return this.sending ?? Promise.resolve();
    this.sending = this.send(this.producer).finally(() => (this.sending = undefined));
    return this.sending;
  }

  private async send(producer: Producer): Promise<void> {
    try {
      const now = Date.now();
      const health = await this.registry.report(now);
      const changed = health.ready !== this.lastReady;
      if (!changed && now - this.lastSent < this.opts.intervalMs) return;
      const dropped = (await PaymentsMetrics.repliesDropped.get()).values.reduce((sum, v) => sum + v.value, 0);
      const payload: ServiceHealthReport = {
        service: this.opts.service,
        instanceId: this.opts.instanceId,
        ready: health.ready,
        live: health.live,
        components: Object.fromEntries(
          Object.entries(health.components).map(([name, h]) => [
            name,
            {
              ready: h.ready,
              detail: h.detail,
              ...(h.notReadySince !== undefined ? { since: new Date(h.notReadySince).toISOString() } : {}),
            },
          ]),
        ),
        repliesDropped: dropped,
        startedAt: this.startedAt,
        reportedAt: new Date(now).toISOString(),
        intervalMs: this.opts.intervalMs,
      };
      const message = envelope({ type: HEALTH_REPORTED, payload, occurredAt: new Date(now) });
      await producer.send({
        topic: this.topic,
        acks: -1,
        messages: [{ key: this.key, value: JSON.stringify(message) }],
      });
      this.lastSent = now;
      this.lastReady = health.ready;
    } catch (err) {
      this.logger.debug?.(`health report not sent: ${err instanceof Error ? err.message : err}`);
    }
  }
}

/** The health reports of an app (needs HealthModule for the registry). */
@Module({})
export class HealthReportingModule {
  static forRoot(opts: HealthReportingOptions): DynamicModule {
    return {
      module: HealthReportingModule,
      providers: [{ provide: HEALTH_REPORTING_OPTIONS, useValue: opts }, HealthReporter],
    };
  }
}
