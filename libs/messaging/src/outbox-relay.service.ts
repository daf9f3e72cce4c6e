import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { HealthRegistry, PaymentsMetrics } from '@payments/platform';
import { DataSource } from 'typeorm';
import { outboxBacklog } from './outbox';
import { OutboxRelay, OutboxRelayOptions } from './outbox-relay';

export const OUTBOX_RELAY_OPTIONS = Symbol('OUTBOX_RELAY_OPTIONS');
export type OutboxRelayServiceOptions = Omit<OutboxRelayOptions, 'dataSource'>;

/** Runs the service's outbox relay for as long as the app runs, and reports its backlog at /metrics. */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly relay: OutboxRelay;
  private readonly removeSources: (() => void)[] = [];

  constructor(
    @Inject(OUTBOX_RELAY_OPTIONS) private readonly opts: OutboxRelayServiceOptions,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly health?: HealthRegistry,
  ) {
    this.relay = new OutboxRelay({ ...opts, dataSource });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.removeSources.length === 0) {
      this.reportBacklog();
      if (this.health) this.removeSources.push(this.health.register(this.relay.health));
    }
    await this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const remove of this.removeSources.splice(0)) remove();
    await this.relay.stop();
  }

  /**
   * The backlog is the service's, not this instance's: every instance reports the same value, so
   * dashboards take `max by (service)` (docs/operations.md). Read at scrape time, one query.
   */
  private reportBacklog(): void {
    const service = this.opts.schema;
    let last: Promise<{ messages: number; oldestAgeSeconds: number }> | undefined;
    // Both gauges of one scrape share one query.
    const backlog = () => (last ??= outboxBacklog(this.dataSource, service).finally(() => (last = undefined)));
    this.removeSources.push(
      PaymentsMetrics.outboxMessages.add(async () => [{ labels: { service }, value: (await backlog()).messages }]),
      PaymentsMetrics.outboxOldestAge.add(async () => [
        { labels: { service }, value: (await backlog()).oldestAgeSeconds },
      ]),
    );
  }
}
