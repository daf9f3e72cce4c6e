import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AccountRef, holdKey, postRefundHold, shopAccount, voidRefundHold } from '@payments/ledger-domain';
import { LedgerRepository, LockedBalances, ZERO } from '../books/ledger.repository';
import { AwaitingRateRepository } from '../convert-rates/awaiting-rate.repository';
import { CLOCK, Clock } from '../tokens';
import { RefundHold, RefundHoldRepository } from './refund-hold.repository';

/** Every account a refund hold's second phase can touch (locked up front, in key order). */
export function refundHoldAccounts(h: RefundHold): AccountRef[] {
  return [
    shopAccount(h.shopId, h.source, h.creditCurrency),
    shopAccount(h.shopId, 'reserved', h.creditCurrency),
    { owner: 'clearing', provider: h.provider, currency: h.orderCurrency },
    { owner: 'fx', currency: h.orderCurrency },
    { owner: 'fx', currency: h.creditCurrency },
  ];
}

/**
 * The second phase of a refund's hold (decision 276): when the refund is booked its reserve leaves
 * the shop through the provider's clearing (at the original rate it was held at); when the refund
 * never came to be it goes back where it came from. A hold finishes once.
 */
@Injectable()
export class RefundHolds {
  constructor(
    private readonly books: LedgerRepository,
    private readonly holds: RefundHoldRepository,
    private readonly awaiting: AwaitingRateRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Posts the refund's open hold as the booking of `eventId`; null when it has no open hold. */
  async post(
    m: EntityManager,
    refundId: string,
    eventId: string,
    at: Date,
    locked?: LockedBalances,
  ): Promise<RefundHold | null> {
    const hold = await this.holds.findForUpdate(m, refundId);
    if (!hold || hold.status !== 'held') return null;
    // The credit's queue row before the accounts, as the sweep takes them (decision 304).
    if (hold.source === 'suspense' && !locked) await this.awaiting.lockWaiting(m, hold.orderId);
    const held = locked ?? (await this.books.lock(m, refundHoldAccounts(hold)));
    await this.books.postNew(
      m,
      {
        id: randomUUID(),
        idempotencyKey: eventId,
        kind: 'order_refunded',
        shopId: hold.shopId,
        sourceType: 'order',
        sourceId: hold.orderId,
        provider: hold.provider,
        operationCurrency: hold.orderCurrency,
        gross: hold.amount,
        fee: ZERO,
        net: hold.amount,
        balanceCurrency: hold.creditCurrency,
        // The available balance moved when the hold was made; this moves reserved only.
        balanceAmount: ZERO,
        createdAt: at,
      },
      postRefundHold(hold),
      held,
    );
    await this.holds.finish(m, refundId, 'posted', this.clock.now());
    // A credit parked for this hold is decided again by the next sweep (decision 304).
    if (hold.source === 'suspense') await this.awaiting.unpark(m, hold.orderId);
    return { ...hold, status: 'posted' };
  }

  /** Voids the refund's open hold (the refund was never created); null when it has no open hold. */
  async void(m: EntityManager, refundId: string): Promise<RefundHold | null> {
    const hold = await this.holds.findForUpdate(m, refundId);
    if (!hold || hold.status !== 'held') return null;
    const now = this.clock.now();
    // The credit's queue row before the accounts, as the sweep takes them (decision 304).
    if (hold.source === 'suspense') await this.awaiting.lockWaiting(m, hold.orderId);
    await this.books.postNew(
      m,
      {
        id: randomUUID(),
        idempotencyKey: holdKey('refund', refundId, 'voided', hold.generation),
        kind: 'refund_voided',
        shopId: hold.shopId,
        sourceType: 'order',
        sourceId: hold.orderId,
        provider: hold.provider,
        operationCurrency: hold.orderCurrency,
        gross: hold.amount,
        fee: ZERO,
        net: hold.amount,
        balanceCurrency: hold.creditCurrency,
        balanceAmount: hold.debit,
        createdAt: now,
      },
      voidRefundHold(hold),
      await this.books.lock(m, refundHoldAccounts(hold)),
    );
    await this.holds.finish(m, refundId, 'voided', now);
    // Money back in suspense is converted by the next sweep (decision 304): the credit parked for
    // this hold is un-parked, one converted meanwhile is queued again for what came back.
    if (hold.source === 'suspense') {
      await this.awaiting.unpark(m, hold.orderId);
      await this.awaiting.enqueueAgain(m, hold.orderId, hold.debit);
    }
    return { ...hold, status: 'voided' };
  }
}
