import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { metricsRegistry, newPool } from '@payments/platform';
import type { Pool } from 'pg';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { ServiceHealthCollector, ServiceInstanceHealth } from './service-health.collector';

/** 15 minutes of samples, one every SAMPLE_MS: the console's small charts. */
export const SAMPLE_MS = 15_000;
const SAMPLES = (15 * 60_000) / SAMPLE_MS;

export interface Overview {
  at: string;
  /** Every instance of every service, from its health reports (`services.health`). */
  services: ServiceInstanceHealth[];
  /** Whether this backoffice instance runs the elected Kafka collector (lag and dead letters come from it). */
  kafkaCollector: 'this_instance' | 'another_instance';
  consumerGroups: { group: string; lag: number; lagSeconds: number; last15m: number[] }[];
  deadLetters: { topic: string; messages: number; last15m: number[] }[];
  outboxes: { schema: string; pending: number; oldestSeconds: number; last15m: number[] }[];
  /** Null while merchant-callbacks' table cannot be read (not deployed or migrated yet). */
  merchantCallbacks: { pending: number; failed: number; last15m: number[] } | null;
  /**
   * Orders, payouts and P2P transactions whose status changed in the last minute, by object type
   * and the status they have now (decision 197).
   */
  transitionsPerMinute: { objectType: TransitionObject; status: string; count: number; last15m: number[] }[];
}

export type TransitionObject = 'order' | 'payout' | 'p2p';

/** One send of a payout or P2P transaction to its provider: a row of the service's dispatch queue. */
export interface TransferAttempt {
  dispatchId: string;
  provider: string;
  status: string;
  sends: number;
  providerPaymentId: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

type Values = { labels: Record<string, string | number>; value: number }[];

async function gaugeValues(name: string): Promise<Values> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) return [];
  return (await metric.get()).values as Values;
}

/**
 * What the console's overview shows, read on demand: consumer lag and dead letters from the Kafka
 * collector's gauges (this process's registry), backlogs and transitions from the operator views
 * the services own and grant (decision 300) through the reconciliation's read-only connection
 * (decision 153). A sample every 15 s is kept in
 * memory for the last 15 minutes' charts.
 */
@Injectable()
export class OverviewService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Overview');
  private readonly reads: Pool;
  private readonly history = new Map<string, number[]>();
  private timer?: NodeJS.Timeout;
  /** Each reason a figure is left out is logged once per process, not on every refresh. */
  private readonly warned = new Set<string>();

  constructor(
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
    private readonly services: ServiceHealthCollector,
  ) {
    this.reads = newPool({ connectionString: config.reconciliation.databaseUrl, max: 2 }, (line) =>
      this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.current()
        .then((o) => this.remember(o))
        .catch((err) => this.logger.warn(`overview sample failed: ${(err as Error).message}`));
    }, SAMPLE_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.reads.end().catch(() => undefined);
  }

  async overview(): Promise<Overview> {
    const o = await this.current();
    if (!this.history.size) this.remember(o);
    const series = (key: string, now: number) => [...(this.history.get(key) ?? []).slice(0, -1), now];
    return {
      ...o,
      consumerGroups: o.consumerGroups.map((g) => ({ ...g, last15m: series(`lag:${g.group}`, g.lag) })),
      deadLetters: o.deadLetters.map((d) => ({ ...d, last15m: series(`dlq:${d.topic}`, d.messages) })),
      outboxes: o.outboxes.map((b) => ({ ...b, last15m: series(`outbox:${b.schema}`, b.pending) })),
      merchantCallbacks: o.merchantCallbacks && {
        ...o.merchantCallbacks,
        last15m: series('callbacks', o.merchantCallbacks.pending),
      },
      transitionsPerMinute: o.transitionsPerMinute.map((t) => ({
        ...t,
        last15m: series(`transitions:${t.objectType}:${t.status}`, t.count),
      })),
    };
  }

  /**
   * A payout's or P2P transaction's sends to its provider, oldest first, read from the service's
   * dispatch queue (its `ops_provider_dispatches` view, decision 300) through the same read-only
   * connection (decision 198). Null when the view cannot be read.
   */
  async transferAttempts(kind: 'payouts' | 'p2p', id: string): Promise<TransferAttempt[] | null> {
    const s = this.config.reconciliation.schemas;
    const schema = `"${(kind === 'payouts' ? s.payouts : s.p2p).replace(/"/g, '')}"`;
    const reference = kind === 'payouts' ? 'payout_id' : 'p2p_id';
    try {
      const { rows } = await this.reads.query<{
        dispatch_id: string;
        provider: string;
        status: string;
        sends: number;
        provider_payment_id: string | null;
        last_error: string | null;
        created_at: Date;
        updated_at: Date;
      }>(
        `SELECT dispatch_id, provider, status, sends, provider_payment_id, last_error, created_at, updated_at
           FROM ${schema}.ops_provider_dispatches WHERE ${reference} = $1 ORDER BY created_at, dispatch_id`,
        [id],
      );
      return rows.map((r) => ({
        dispatchId: r.dispatch_id,
        provider: r.provider,
        status: r.status,
        sends: r.sends,
        providerPaymentId: r.provider_payment_id,
        lastError: r.last_error,
        createdAt: r.created_at.toISOString(),
        updatedAt: r.updated_at.toISOString(),
      }));
    } catch (err) {
      this.logger.warn(`attempts of ${kind} ${id} could not be read: ${(err as Error).message}`);
      return null;
    }
  }

  private remember(o: Overview): void {
    const push = (key: string, value: number) => {
      const list = this.history.get(key) ?? [];
      list.push(value);
      if (list.length > SAMPLES) list.shift();
      this.history.set(key, list);
    };
    for (const g of o.consumerGroups) push(`lag:${g.group}`, g.lag);
    for (const d of o.deadLetters) push(`dlq:${d.topic}`, d.messages);
    for (const b of o.outboxes) push(`outbox:${b.schema}`, b.pending);
    if (o.merchantCallbacks) push('callbacks', o.merchantCallbacks.pending);
    for (const t of o.transitionsPerMinute) push(`transitions:${t.objectType}:${t.status}`, t.count);
  }

  private async current(): Promise<Overview> {
    const [lagSums, lagSeconds, dlq] = await Promise.all([
      gaugeValues('kafka_consumergroup_lag_sum'),
      gaugeValues('kafka_consumergroup_lag_seconds'),
      gaugeValues('payments_dead_letter_messages'),
    ]);
    const groups = new Map<string, { lag: number; lagSeconds: number }>();
    for (const v of lagSums) {
      const g = groups.get(String(v.labels.consumergroup)) ?? { lag: 0, lagSeconds: 0 };
      g.lag += v.value;
      groups.set(String(v.labels.consumergroup), g);
    }
    for (const v of lagSeconds) {
      const g = groups.get(String(v.labels.consumergroup));
      if (g) g.lagSeconds = Math.max(g.lagSeconds, v.value);
    }
    const s = this.config.reconciliation.schemas;
    const q = (schema: string) => `"${schema.replace(/"/g, '')}"`;
    // A service's view that cannot be read (not deployed, not migrated yet) leaves its figure out.
    const rows = <T>(sql: string): Promise<T[] | null> =>
      this.reads.query(sql).then(
        (r) => r.rows as T[],
        (err: Error) => {
          if (!this.warned.has(err.message)) {
            this.warned.add(err.message);
            this.logger.warn(`overview: a figure is left out: ${err.message}`);
          }
          return null;
        },
      );
    const [outboxes, callbacks, transitions] = await Promise.all([
      Promise.all(
        s.outboxes.map(async (schema) => {
          const found = await rows<{ pending: number; oldest: number | null }>(
            `SELECT count(*)::int AS pending, extract(epoch FROM now() - min(created_at))::float AS oldest
               FROM ${q(schema)}.ops_outbox_unpublished`,
          );
          return (
            found && { schema, pending: found[0].pending, oldestSeconds: Math.round(found[0].oldest ?? 0), last15m: [] }
          );
        }),
      ),
      rows<{ pending: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM ${q(s.merchantCallbacks)}.ops_deliveries WHERE status IN ('pending', 'failed')`,
      ),
      Promise.all(
        (
          [
            ['order', `${q(s.orders)}.ops_orders`],
            ['payout', `${q(s.payouts)}.ops_payouts`],
            ['p2p', `${q(s.p2p)}.ops_transactions`],
          ] as const
        ).map(async ([objectType, table]) =>
          (
            (await rows<{ status: string; count: number }>(
              `SELECT status, count(*)::int AS count FROM ${table}
              WHERE updated_at > now() - interval '1 minute' GROUP BY status ORDER BY status`,
            )) ?? []
          ).map((r) => ({ objectType, ...r })),
        ),
      ).then((found) => found.flat()),
    ]);
    return {
      at: new Date().toISOString(),
      services: this.services.instances(),
      kafkaCollector: lagSums.length || dlq.length ? 'this_instance' : 'another_instance',
      consumerGroups: [...groups]
        .map(([group, g]) => ({ group, ...g, last15m: [] }))
        .sort((a, b) => a.group.localeCompare(b.group)),
      deadLetters: dlq
        .map((v) => ({ topic: String(v.labels.topic), messages: v.value, last15m: [] }))
        .sort((a, b) => a.topic.localeCompare(b.topic)),
      outboxes: outboxes.filter((o) => o !== null),
      merchantCallbacks: callbacks ? { ...callbacks[0], last15m: [] } : null,
      transitionsPerMinute: transitions.map((r) => ({ ...r, last15m: [] })),
    };
  }
}
