import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import {
  AccountRef,
  availableOn,
  checkPostings,
  FeeSchedule,
  LedgerCurrency,
  planCompletion,
  planRefund,
  Posting,
  RateInForce,
  ShopAccountKinds,
  shopAccount,
} from '@payments/ledger-domain';
import { Amount } from '@payments/money';
import { LedgerRepository, LockedBalances, NewTransaction, ZERO } from '../books/ledger.repository';
import { RefundHold, RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { refundHoldAccounts, RefundHolds } from '../hold-refunds/refund-holds';
import { AwaitingRateRepository } from '../convert-rates/awaiting-rate.repository';
import { OrderBooking, UnbookableEvent } from './order-event';

/** Provider clearing for a completion no provider reported (an operator accepted it): booked, and visible. */
export const UNATTRIBUTED_PROVIDER = 'unattributed';
const DEFAULT_SETTLEMENT_DELAY_S = 86_400;

/** A completion decided, to be posted with the completions next to it (`flush`). */
interface PlannedCompletion {
  e: OrderBooking;
  tx: NewTransaction;
  postings: Posting[];
  /** Held in suspense in the order currency: no rate in force. */
  waits: boolean;
  credited: Amount;
}

/**
 * Books a partition batch of order completions and refunds in the caller's transaction (one per
 * batch): load what the rules need (settlement delays, fee schedules and rates, one statement each
 * for the whole batch), lock every account the batch can touch in key order, then decide each event
 * in offset order. A completion's decision reads no balance, so consecutive completions are posted
 * together in a constant number of statements (`LedgerRepository.postMany`, decision 340); they are
 * posted before a refund is decided, which reads the balances they moved. The batch tells each shop
 * and currency's balance once, with the figures after it (decision 339).
 */
@Injectable()
export class OrderBooker {
  private readonly logger = new Logger(OrderBooker.name);

  constructor(
    @Inject(LedgerRepository) private readonly books: LedgerRepository,
    private readonly refundHoldRows: RefundHoldRepository,
    private readonly refundHolds: RefundHolds,
    private readonly awaiting: AwaitingRateRepository,
  ) {}

  async book(m: EntityManager, events: readonly OrderBooking[]): Promise<void> {
    if (events.length === 0) return;
    const delayOf = await this.books.settlementDelays(m, [...new Set(events.map((e) => e.shopId))]);
    const completions = events.filter((e) => e.kind === 'completed');
    const feeOf = await this.books.feeSchedules(
      m,
      completions.map((e) => ({ shopId: e.shopId, method: e.method, currency: e.orderCurrency.code })),
    );
    const converting = completions.filter((e) => e.orderCurrency.code !== e.balanceCurrency.code);
    const found = await this.books.ratesInForce(
      m,
      converting.map((e) => ({ base: e.orderCurrency.code, quote: e.balanceCurrency.code, at: e.occurredAt })),
    );
    const rates = new Map(converting.map((e, i) => [e, found[i]]));
    const originals = new Map<string, string | null>();
    const holds = new Map<string, RefundHold>();
    const refunds = events.filter((e) => e.kind === 'refunded');
    // The refunds' hold rows first, then their credits' queue rows: the order the orphan sweep and
    // a reserve take them in (decision 355).
    for (const e of refunds) {
      const hold = e.refundId ? await this.refundHoldRows.findForUpdate(m, e.refundId) : null;
      if (hold) holds.set(e.eventId, hold);
    }
    for (const e of refunds) {
      if (originals.has(e.orderId)) continue;
      // A conversion in progress is waited for: the refund then takes the converted credit (decision 304).
      await this.awaiting.lockWaiting(m, e.orderId);
      originals.set(e.orderId, (await this.books.originalCredit(m, e.orderId))?.provider ?? null);
    }
    const locked = (
      await this.books.lock(
        m,
        events.flatMap((e) => {
          const hold = holds.get(e.eventId);
          return [
            ...touched(e, e.provider ?? originals.get(e.orderId) ?? UNATTRIBUTED_PROVIDER),
            ...(hold ? refundHoldAccounts(hold) : []),
          ];
        }),
      )
    ).collectBalanceEvents();
    let run: PlannedCompletion[] = [];
    for (const e of events) {
      if (e.kind === 'completed') {
        const delayS = delayOf(e.shopId) ?? DEFAULT_SETTLEMENT_DELAY_S;
        run.push(this.plan(e, delayS, feeOf(e.shopId, e.method, e.orderCurrency.code), rates.get(e) ?? null));
        continue;
      }
      // A refund is decided on the balances as the completions before it left them.
      await this.flush(m, locked, run);
      run = [];
      await this.refund(m, locked, e, holds.get(e.eventId));
    }
    await this.flush(m, locked, run);
    await this.books.publishBalanceEvents(m, locked);
  }

  /** A completion's transaction and postings: from its fee and the rate, never from a balance. */
  private plan(e: OrderBooking, delayS: number, fee: FeeSchedule, rate: RateInForce | null): PlannedCompletion {
    const plan = planCompletion({
      shopId: e.shopId,
      provider: e.provider ?? UNATTRIBUTED_PROVIDER,
      gross: e.amount,
      orderCurrency: e.orderCurrency,
      balanceCurrency: e.balanceCurrency,
      fee,
      rate,
    });
    if (plan.kind === 'rejected')
      throw new UnbookableEvent(e.eventId, `order ${e.orderId}: ${plan.field}: ${plan.reason}`);
    check(plan.postings, e);
    const waits = plan.kind === 'awaiting_rate';
    const credited = waits ? plan.net : plan.credited;
    const tx: NewTransaction = {
      id: randomUUID(),
      idempotencyKey: e.eventId,
      kind: 'order_completed',
      status: waits ? 'awaiting_rate' : 'posted',
      shopId: e.shopId,
      sourceType: 'order',
      sourceId: e.orderId,
      provider: e.provider,
      operationCurrency: e.orderCurrency.code,
      gross: e.amount,
      fee: plan.fee,
      net: plan.net,
      balanceCurrency: waits ? e.orderCurrency.code : e.balanceCurrency.code,
      balanceAmount: credited,
      rate: waits ? null : plan.rate,
      createdAt: e.occurredAt,
      availableOn: waits ? null : availableOn(e.occurredAt, delayS),
    };
    return { e, tx, postings: plan.postings, waits, credited };
  }

  /**
   * Posts a run of consecutive completions at once: one already booked (its event id, or its
   * order's one credit, earlier or earlier in the run) posts nothing; the settlements of those that
   * posted are queued in one statement.
   */
  private async flush(m: EntityManager, locked: LockedBalances, run: readonly PlannedCompletion[]): Promise<void> {
    if (run.length === 0) return;
    const posted = await this.books.postMany(m, run, locked);
    const settle: Parameters<LedgerRepository['scheduleSettlements']>[1][number][] = [];
    for (const { e, tx, waits, credited } of run) {
      if (!posted.has(tx.id)) {
        this.logger.log(`order ${e.orderId}: ${tx.kind} already booked`);
        continue;
      }
      if (!waits) {
        if (credited.greaterThan(0))
          settle.push({
            transactionId: tx.id,
            shopId: e.shopId,
            currency: e.balanceCurrency.code,
            amount: credited,
            availableOn: tx.availableOn!,
          });
        continue;
      }
      this.logger.warn(
        `order ${e.orderId}: no ${e.orderCurrency.code}/${e.balanceCurrency.code} rate in force; ${tx.net.toFixed()} ${e.orderCurrency.code} held in suspense`,
      );
      // Converted by the conversion sweep once the pair has a rate (decision 304).
      if (tx.net.greaterThan(0))
        await this.awaiting.enqueue(m, {
          transactionId: tx.id,
          shopId: e.shopId,
          orderId: e.orderId,
          orderCurrency: e.orderCurrency.code,
          balanceCurrency: e.balanceCurrency.code,
          amount: tx.net,
          createdAt: e.occurredAt,
        });
    }
    await this.books.scheduleSettlements(m, settle);
  }

  private async refund(m: EntityManager, locked: LockedBalances, e: OrderBooking, hold?: RefundHold): Promise<void> {
    // The refund's debit was held before it was accepted (decision 276): booking it posts the hold, once.
    if (hold?.status === 'held') {
      await this.refundHolds.post(m, hold.refundId, e.eventId, e.occurredAt, locked);
      return;
    }
    if (hold?.status === 'posted') {
      this.logger.log(`order ${e.orderId}: refund ${e.refundId} already booked`);
      return;
    }
    // No hold (accepted where no ledger was asked, or its hold voided as an orphan): booked as before.
    if (hold) this.logger.warn(`order ${e.orderId}: refund ${e.refundId} booked after its hold was voided`);
    const original = await this.books.originalCredit(m, e.orderId);
    if (!original)
      throw new UnbookableEvent(
        e.eventId,
        `order ${e.orderId}: refund ${e.refundId} of an order the books never credited`,
      );
    const inSuspense = original.status === 'awaiting_rate';
    const creditCurrency: LedgerCurrency = inSuspense ? e.orderCurrency : e.balanceCurrency;
    const provider = e.provider ?? original.provider ?? UNATTRIBUTED_PROVIDER;
    const plan = planRefund({
      shopId: e.shopId,
      provider,
      amount: e.amount,
      orderCurrency: e.orderCurrency,
      creditCurrency,
      rate: inSuspense ? null : original.rate,
      inSuspense,
      balances: Object.fromEntries(
        ShopAccountKinds.map((k) => [k, locked.of(shopAccount(e.shopId, k, creditCurrency.code))]),
      ),
    });
    if (plan.kind === 'rejected')
      throw new UnbookableEvent(e.eventId, `order ${e.orderId}: refund.${plan.field}: ${plan.reason}`);
    const tx: NewTransaction = {
      id: randomUUID(),
      idempotencyKey: e.eventId,
      kind: 'order_refunded',
      shopId: e.shopId,
      sourceType: 'order',
      sourceId: e.orderId,
      provider,
      operationCurrency: e.orderCurrency.code,
      gross: e.amount,
      fee: ZERO,
      net: e.amount,
      balanceCurrency: creditCurrency.code,
      balanceAmount: plan.debited.negated(),
      rate: !inSuspense && original.rate ? { rate: original.rate, source: 'original', validFrom: e.occurredAt } : null,
      createdAt: e.occurredAt,
    };
    const posted = await this.post(m, tx, plan.postings, locked, e);
    if (posted && plan.shortfall.greaterThan(0))
      this.logger.warn(
        `order ${e.orderId}: refund ${e.refundId} exceeds the balance by ${plan.shortfall.toFixed()} ${creditCurrency.code}; booked as the shop's debt`,
      );
    // The refund is booked: its voided hold says so, and is never held again (decision 355).
    if (posted && hold) await this.refundHoldRows.finish(m, hold.refundId, 'posted', e.occurredAt);
  }

  private async post(
    m: EntityManager,
    tx: NewTransaction,
    postings: Posting[],
    locked: LockedBalances,
    e: OrderBooking,
  ) {
    check(postings, e);
    const posted = await this.books.post(m, tx, postings, locked);
    if (!posted) this.logger.log(`order ${e.orderId}: ${tx.kind} already booked`);
    return posted;
  }
}

function check(postings: readonly Posting[], e: OrderBooking): void {
  const check = checkPostings(postings, new Map([e.orderCurrency, e.balanceCurrency].map((c) => [c.code, c])));
  if (check.kind === 'unbalanced') throw new Error(`order ${e.orderId}: ${check.reason}`);
}

/** Every account an event can touch, whatever the rules decide (locked up front, in key order). */
function touched(e: OrderBooking, provider: string): AccountRef[] {
  const currencies = [...new Set([e.orderCurrency.code, e.balanceCurrency.code])];
  return [
    { owner: 'clearing', provider, currency: e.orderCurrency.code },
    { owner: 'fee_revenue', currency: e.orderCurrency.code },
    ...currencies.flatMap((currency): AccountRef[] => [
      { owner: 'fx', currency },
      ...ShopAccountKinds.map((kind) => shopAccount(e.shopId, kind, currency)),
    ]),
  ];
}
