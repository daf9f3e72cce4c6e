import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BOOKS_CHECKS, BooksCheckResult, runBooksChecks } from '@payments/ledger-domain';
import { IntervalJob, PaymentsMetrics } from '@payments/platform';
import { LedgerConfig } from '../config';
import { CLOCK, Clock, LEDGER_CONFIG } from '../tokens';

/** How many of a check's violations one error line names (the rest: the metric and npm run reconcile). */
const NAMED = 5;

/**
 * Checks the books continuously (decision 306): every LEDGER_BOOKS_CHECK_MS the invariants of
 * `runBooksChecks` run over the ledger's own views; what they find is
 * `payments_ledger_books_violations{check}` (0 when a check holds) beside the time of the last
 * check (the instance's start until one succeeded, so that `LedgerBooksNotChecked` fires when no
 * check ever does), and each violation not seen by the previous check is logged at error level,
 * naming its check. The first check runs at start. Read-only: every instance may run it.
 */
@Injectable()
export class BooksMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BooksCheck');
  private readonly job: IntervalJob;
  private last?: { at: Date; results: BooksCheckResult[] };
  /** Until a check succeeds, the last-check gauge says the instance's start: one that never checks alerts too. */
  private startedAt?: Date;
  private seen = new Set<string>();
  private readonly removeSources: (() => void)[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'books check',
      config.booksCheckMs,
      () => this.check(),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    // Nest runs bootstrap hooks once per part of the app (HTTP and each consumer): start once.
    if (this.startedAt) return;
    this.startedAt = this.clock.now();
    this.removeSources.push(
      PaymentsMetrics.ledgerBooksViolations.add(async () =>
        this.last
          ? BOOKS_CHECKS.map((check) => ({
              labels: { check },
              value: this.last!.results.find((r) => r.check === check)?.findings.length ?? 0,
            }))
          : [],
      ),
      PaymentsMetrics.ledgerBooksLastCheck.add(async () => [
        { labels: {}, value: (this.last?.at ?? this.startedAt!).getTime() / 1000 },
      ]),
      PaymentsMetrics.ledgerAwaitingRate.add(async () => {
        const [r] = await this.dataSource.query(
          `SELECT count(*)::int AS n FROM "${this.config.schema}".awaiting_rates`,
        );
        return [{ labels: {}, value: r.n }];
      }),
    );
    this.job.start();
    // The first check at start, not one interval later.
    this.check().catch((err: unknown) =>
      this.logger.warn(`books check failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const remove of this.removeSources.splice(0)) remove();
    await this.job.stop();
  }

  /** One check now: answers its results, logs the violations it had not seen before. */
  async check(): Promise<BooksCheckResult[]> {
    const results = await runBooksChecks((sql, params) => this.dataSource.query(sql, params), this.config.schema);
    this.last = { at: this.clock.now(), results };
    const seen = new Set<string>();
    for (const r of results) {
      const fresh = r.findings.filter((f) => !this.seen.has(`${f.check} ${f.subject}`));
      for (const f of r.findings) seen.add(`${f.check} ${f.subject}`);
      if (fresh.length === 0) continue;
      const named = fresh.slice(0, NAMED).map((f) => `${f.subject}: ${f.detail}`);
      const more = fresh.length > NAMED ? `; and ${fresh.length - NAMED} more` : '';
      this.logger.error(
        `books check ${r.check}: ${r.findings.length} violation(s) of ${r.checked} checked; new: ${named.join('; ')}${more}`,
      );
    }
    this.seen = seen;
    return results;
  }
}
