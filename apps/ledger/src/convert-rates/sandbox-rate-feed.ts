import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IntervalJob } from '@payments/platform';
import { LedgerConfig } from '../config';
import { CLOCK, Clock, LEDGER_CONFIG } from '../tokens';

/** The source the feed's rates are recorded with (on the rate and on every conversion at it). */
export const SANDBOX_FEED_SOURCE = 'sandbox-feed';

/**
 * The sandbox rates feed for local runs (decision 305): `LEDGER_SANDBOX_RATES` names pairs and
 * rates, and every `LEDGER_SANDBOX_RATES_MS` (and at start) the feed appends, with source
 * `sandbox-feed`, the rate of each pair that has none in force now or whose rate in force is an
 * older one of the feed's. It steps aside whenever any other rate (an operator's) covers now, a
 * back-dated one too: the books prefer any other source's rate in force to the feed's
 * (`rateInForce`), and the feed then appends nothing. Off (no pairs) unless set, and refused
 * unless LEDGER_SANDBOX_ENVIRONMENT=true; `npm start` sets both. One instance appends at a time (a transaction-scoped advisory lock).
 */
@Injectable()
export class SandboxRateFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SandboxRateFeed.name);
  private readonly job: IntervalJob;
  private first?: Promise<unknown>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'sandbox rates feed',
      config.sandboxRates.length > 0 ? config.sandboxRatesMs : 0,
      () => this.refresh(),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    // Nest runs bootstrap hooks once per part of the app (HTTP and each consumer): start once.
    if (this.config.sandboxRates.length === 0 || this.first) return;
    this.first = this.refresh().catch((err: unknown) =>
      this.logger.warn(`sandbox rates feed failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.first;
    await this.job.stop();
  }

  /** Appends the feed's rates that are not in force now; answers how many it appended. */
  async refresh(): Promise<number> {
    const s = this.config.schema;
    const now = this.clock.now();
    const appended = await this.dataSource.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${s}.sandbox-rates-feed`]);
      const pairs = this.config.sandboxRates;
      const rows: { base: string; quote: string; rate: string }[] = await m.query(
        `INSERT INTO "${s}".rates (base, quote, rate, source, valid_from)
         SELECT p.base, p.quote, p.rate, $4, $5 FROM unnest($1::text[], $2::text[], $3::numeric[]) AS p(base, quote, rate)
          WHERE NOT EXISTS (
            SELECT 1 FROM (SELECT r.rate, r.source FROM "${s}".rates r
                            WHERE r.base = p.base AND r.quote = p.quote AND r.valid_from <= $5
                              AND (r.valid_to IS NULL OR r.valid_to > $5)
                            ORDER BY r.source = $4, r.valid_from DESC, r.id DESC LIMIT 1) current
             WHERE current.source <> $4 OR current.rate = p.rate)
         RETURNING base, quote, rate::text`,
        [pairs.map((p) => p.base), pairs.map((p) => p.quote), pairs.map((p) => p.rate), SANDBOX_FEED_SOURCE, now],
      );
      return rows;
    });
    for (const r of appended) this.logger.log(`${r.base}/${r.quote}: ${r.rate} (${SANDBOX_FEED_SOURCE})`);
    return appended.length;
  }
}
