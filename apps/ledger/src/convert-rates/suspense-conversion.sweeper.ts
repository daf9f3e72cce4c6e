import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AccountRef, availableOn, bookCurrency, planConversion, shopAccount } from '@payments/ledger-domain';
import { MoneyDecimal } from '@payments/money';
import { IntervalJob } from '@payments/platform';
import { LedgerRepository, LockedBalances, ZERO } from '../books/ledger.repository';
import { LedgerConfig } from '../config';
import { CLOCK, Clock, LEDGER_CONFIG } from '../tokens';
import { AwaitingCredit, AwaitingRateRepository, REFUND_HOLD } from './awaiting-rate.repository';

const BATCH = 100;
const DEFAULT_SETTLEMENT_DELAY_S = 86_400;

/** Every account a conversion can touch (locked up front, in key order). */
function touched(c: AwaitingCredit): AccountRef[] {
  return [
    shopAccount(c.shopId, 'suspense', c.orderCurrency),
    shopAccount(c.shopId, 'pending', c.balanceCurrency),
    { owner: 'fx', currency: c.orderCurrency },
    { owner: 'fx', currency: c.balanceCurrency },
  ];
}

/**
 * Converts the credits that waited in suspense for a rate once their pair has one (decision 304):
 * at the rate in force at the order's completion when an operator set one for that time, else at
 * the rate in force now; never at a guessed one. What is left of the credit in suspense moves
 * through the FX accounts to the shop's pending, as a `suspense_converted` transaction keyed by
 * the credit (`convert:<credit id>`), and is queued for settlement like any credit. The waiting
 * credits are taken off their queue with FOR UPDATE SKIP LOCKED in the transaction that converts
 * them, so several instances share the work and none converts a credit twice. Each credit is
 * converted under its own savepoint: one that fails is parked (its row kept with the error, which
 * the take skips and the reconciliation's finding shows) and the rest of the batch goes on.
 */
@Injectable()
export class SuspenseConversionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SuspenseConversionSweeper.name);
  private readonly job: IntervalJob;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly books: LedgerRepository,
    private readonly awaiting: AwaitingRateRepository,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.job = new IntervalJob(
      'suspense conversion sweep',
      config.rateConversionMs,
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

  /** Converts what has a rate now, batch by batch; answers how many credits it converted. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = this.clock.now();
      const taken = await this.dataSource.transaction(async (m) => {
        const due = await this.awaiting.takeConvertible(m, now, BATCH);
        if (due.length === 0) return 0;
        let locked = await this.books.lock(m, due.flatMap(touched));
        const delayOf = await this.books.settlementDelays(m, [...new Set(due.map((c) => c.shopId))]);
        for (const c of due) {
          // One credit's failure parks that credit, not the batch (decision 304).
          await m.query('SAVEPOINT convert_credit');
          try {
            await this.convert(m, c, now, locked, delayOf(c.shopId) ?? DEFAULT_SETTLEMENT_DELAY_S);
            await m.query('RELEASE SAVEPOINT convert_credit');
          } catch (err) {
            await m.query('ROLLBACK TO SAVEPOINT convert_credit');
            locked = await this.books.lock(m, due.flatMap(touched));
            const reason = `conversion failed: ${err instanceof Error ? err.message : String(err)}`;
            await this.awaiting.park(m, c, reason, now);
            this.logger.error(`order ${c.orderId}: credit ${c.transactionId} parked in suspense, ${reason}`);
          }
        }
        return due.length;
      });
      total += taken;
      if (taken < BATCH) break;
    }
    return total;
  }

  private async convert(m: EntityManager, c: AwaitingCredit, now: Date, locked: LockedBalances, delayS: number) {
    const from = bookCurrency(c.orderCurrency);
    const to = bookCurrency(c.balanceCurrency);
    if (from.kind === 'invalid' || to.kind === 'invalid')
      throw new Error(`order ${c.orderId}: its credit's currency is no longer in the registry`);
    const rate =
      (await this.books.rateInForce(m, c.orderCurrency, c.balanceCurrency, c.createdAt)) ??
      (await this.books.rateInForce(m, c.orderCurrency, c.balanceCurrency, now));
    if (!rate) throw new Error(`order ${c.orderId}: taken for conversion with no rate in force`);
    const suspense = shopAccount(c.shopId, 'suspense', c.orderCurrency);
    const left = MoneyDecimal.min(await this.awaiting.suspenseLeft(m, c.orderId, suspense), locked.of(suspense));
    const plan = planConversion({
      shopId: c.shopId,
      left,
      orderCurrency: from.currency,
      balanceCurrency: to.currency,
      rate,
    });
    if (plan.kind === 'nothing') {
      // A refund's hold that took it all may yet be voided back to suspense: the credit stays queued, parked.
      if (await this.awaiting.refundHeld(m, c.orderId)) {
        await this.awaiting.park(m, c, REFUND_HOLD, now);
        this.logger.log(`order ${c.orderId}: nothing left in suspense to convert while a refund holds it; parked`);
      } else this.logger.log(`order ${c.orderId}: nothing left in suspense to convert (refunded meanwhile)`);
      return;
    }
    const before = await this.awaiting.conversions(m, c.orderId);
    const tx = {
      id: randomUUID(),
      idempotencyKey: before === 0 ? `convert:${c.transactionId}` : `convert:${c.transactionId}:${before + 1}`,
      kind: 'suspense_converted' as const,
      shopId: c.shopId,
      sourceType: 'order' as const,
      sourceId: c.orderId,
      provider: c.provider,
      operationCurrency: c.orderCurrency,
      gross: plan.amount,
      fee: ZERO,
      net: plan.amount,
      balanceCurrency: c.balanceCurrency,
      balanceAmount: plan.credited,
      rate: plan.rate,
      createdAt: now,
      availableOn: availableOn(now, delayS),
    };
    if (!(await this.books.post(m, tx, plan.postings, locked))) return;
    if (plan.credited.greaterThan(0))
      await this.books.scheduleSettlement(m, tx.id, c.shopId, c.balanceCurrency, plan.credited, tx.availableOn);
    this.logger.log(
      `order ${c.orderId}: ${plan.amount.toFixed()} ${c.orderCurrency} converted from suspense at ${plan.rate.rate.toFixed()} (${plan.rate.source}): ${plan.credited.toFixed()} ${c.balanceCurrency} pending`,
    );
  }
}
