import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { newPool, PaymentsMetrics } from '@payments/platform';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { formatReport, reconcile, ReconciliationRun } from './reconcile';
import { INVARIANTS } from './reconciliation.reads';
import { ReconciliationRepository } from './reconciliation.repository';

/**
 * The continuous reconciliation (decision 106): every RECONCILIATION_INTERVAL_MS the checks run
 * over the other services' tables through their own connection; breaches go to the backoffice's
 * tables, the log and `payments_reconciliation_breaches{invariant}`.
 */
@Injectable()
export class ReconciliationService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Reconciliation');
  readonly repository: ReconciliationRepository;
  private readonly reads: Pool;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private removeSource?: () => void;
  /** The breaches the previous run of this instance found, to warn of new ones only. */
  private previous = new Set<string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
  ) {
    this.repository = new ReconciliationRepository(config.schema);
    this.reads = newPool({ connectionString: config.reconciliation.databaseUrl, max: 1 }, (line) =>
      this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    // Any backoffice instance answers the metric from the shared table, whichever instance ran the checks.
    if (!this.removeSource) {
      const query = (sql: string, params?: unknown[]) => this.dataSource.query(sql, params);
      const removeBreaches = PaymentsMetrics.reconciliationBreaches.add(async () => {
        const open = await this.repository.openCounts(query);
        return INVARIANTS.map((invariant) => ({ labels: { invariant }, value: open.get(invariant) ?? 0 }));
      });
      // From the shared table: any backoffice instance answers when the last good run (of any instance) was.
      const removeLastSuccess = PaymentsMetrics.reconciliationLastSuccess.add(async () => {
        const last = await this.repository.lastRun(query);
        return [{ labels: {}, value: last ? new Date(last.finishedAt).getTime() / 1000 : 0 }];
      });
      this.removeSource = () => {
        removeBreaches();
        removeLastSuccess();
      };
    }
    const every = this.config.reconciliation.intervalMs;
    if (every <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runReported().finally(() => (this.running = undefined));
    }, every);
    this.timer.unref();
  }

  /**
   * One run of the job: a failure (a table it cannot read, say) is logged as an error and counted
   * in payments_reconciliation_failed_runs_total, and the last-success timestamp stops advancing.
   */
  async runReported(): Promise<void> {
    try {
      await this.run();
    } catch (err: unknown) {
      PaymentsMetrics.reconciliationFailedRuns.inc();
      this.logger.error(
        `run failed, next in ${this.config.reconciliation.intervalMs} ms: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.removeSource?.();
    await this.running;
    await this.reads.end();
  }

  /** One run now; null when another instance is running one. */
  async run(): Promise<ReconciliationRun | null> {
    const run = await reconcile(
      this.reads,
      (work) => this.dataSource.transaction((m) => work((sql, params) => m.query(sql, params))),
      this.repository,
      this.config.reconciliation,
      () => new Date(),
    );
    if (!run) return null;
    // A warning when a run finds a breach the previous one did not: an open breach stays visible
    // in the metric, its alert and /ops/v1/reconciliation/breaches, not as the same lines every run.
    const current = new Set(run.results.flatMap((r) => r.breaches.map((b) => `${b.invariant} ${b.subject}`)));
    const fresh = [...current].some((key) => !this.previous.has(key));
    this.previous = current;
    if (fresh) this.logger.warn(formatReport(run, 5));
    else this.logger.log(formatReport(run));
    return run;
  }
}
