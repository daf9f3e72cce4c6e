import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { planSettlement, shopAccount } from '@payments/ledger-domain';
import { IntervalJob } from '@payments/platform';
import { LedgerRepository, TransactionToPost, ZERO } from '../books/ledger.repository';
import { LedgerConfig } from '../config';
import { CLOCK, Clock, LEDGER_CONFIG } from '../tokens';

/**
 * Moves each credit from pending to available once the shop's settlement delay has passed, paying
 * first what the shop owes in its currency (receivable back toward zero, decision 348); the due
 * credits of a shop and currency in one batch settle as one transaction (decision 351). The
 * due credits are taken off the queue with FOR UPDATE SKIP LOCKED in the transaction that posts
 * their settlements, so several instances share the work and none settles a credit twice; a
 * crash mid-way rolls the take back with the postings. A batch is posted in a constant number of
 * statements and tells each shop's balance once (decisions 339, 340).
 */
@Injectable()
export class SettlementSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SettlementSweeper.name);
  private readonly job: IntervalJob;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly books: LedgerRepository,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'settlement sweep',
      config.settlementSweepMs,
      () => this.sweep(),
      (line) => this.logger.warn(line),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** Settles what is due now, batch by batch; answers how many credits it settled. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = this.clock.now();
      const settled = await this.dataSource.transaction(async (m) => {
        const due = await this.books.takeDueSettlements(m, now, this.config.settlementBatch);
        if (due.length === 0) return 0;
        const locked = await this.books.lock(
          m,
          due
            .map((d) => shopAccount(d.shopId, 'pending', d.currency))
            .concat(due.map((d) => shopAccount(d.shopId, 'available', d.currency))),
        );
        // One settlement per shop and currency for the batch's due credits (decision 351), planned on a
        // copy and posted at once (decision 340). Each due credit's queue row is taken once and deleted
        // here, and is only ever written when its credit posted: every settlement is new.
        const running = locked.copy();
        const settlements: TransactionToPost[] = [];
        let repaid = 0;
        for (const group of byShopAndCurrency(due)) {
          const { shopId, currency } = group[0];
          // What the shop owes in the currency is paid first (decision 348): the receivable is locked with
          // the shop's figures (withMerchantBalances), so two sweeps never repay the same debt twice.
          // Settled together, the credits move what settling them one by one would: the sum of each one's
          // min(credit, what pending has left), and the debt paid from the first of it.
          const plan = planSettlement(
            shopId,
            currency,
            group.reduce((sum, d) => sum.plus(d.amount), ZERO),
            running.of(shopAccount(shopId, 'pending', currency)),
            running.of(shopAccount(shopId, 'receivable', currency)),
          );
          if (plan.kind === 'nothing') continue;
          running.apply(plan.postings);
          if (plan.repaid.greaterThan(0)) repaid += 1;
          const id = randomUUID();
          settlements.push({
            tx: {
              id,
              // Each credit is taken off the queue once, so the first of a group names one settlement only.
              idempotencyKey: `settlement:${group[0].transactionId}`,
              kind: 'settlement',
              shopId,
              sourceType: 'settlement',
              sourceId: id,
              settledCredits: group.map((d) => d.transactionId),
              provider: null,
              operationCurrency: currency,
              gross: plan.amount,
              fee: ZERO,
              net: plan.amount,
              balanceCurrency: currency,
              balanceAmount: plan.amount,
              createdAt: now,
              availableOn: now,
            },
            postings: plan.postings,
          });
        }
        // One balance event per shop and currency for the batch (decision 339).
        const posted = await this.books.postMany(m, settlements, locked);
        // Every settlement is new (its first credit was just taken off the queue). One that posted
        // nothing would leave its credits in pending with no queue row: roll the take back instead.
        if (posted.size !== settlements.length)
          throw new Error(`${settlements.length - posted.size} settlements of this sweep were already posted`);
        if (repaid > 0) this.logger.log(`${repaid} settlements repaid what their shop owed first`);
        return due.length;
      });
      total += settled;
      if (settled < this.config.settlementBatch) break;
    }
    if (total > 0) this.logger.debug(`settled ${total} credits`);
    return total;
  }
}

/** The due credits grouped by shop and currency, in the order the queue gave them (a shop's id in any case). */
function byShopAndCurrency<T extends { shopId: string; currency: string }>(due: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const d of due) {
    const key = `${d.shopId.toLowerCase()}|${d.currency}`;
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  return [...groups.values()];
}
