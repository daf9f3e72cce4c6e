import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { holdKey, postHold, postVoidedHold, shopAccount, voidHold } from '@payments/ledger-domain';
import { ZERO, LedgerRepository } from '../books/ledger.repository';
import { CLOCK, Clock } from '../tokens';
import { Hold, HoldRepository } from './hold.repository';

/**
 * The second phase of a payout's hold (TigerBeetle's post or void of a pending transfer): on
 * success the reserve leaves the shop, on failure or cancellation it goes back to available. A
 * hold finishes once; whatever comes after is a no-op, but for a completion after a void.
 */
@Injectable()
export class PayoutHolds {
  private readonly logger = new Logger(PayoutHolds.name);

  constructor(
    private readonly books: LedgerRepository,
    private readonly holds: HoldRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Finishes the payout's open hold as `outcome`; null when it has none. A completion that finds
   * its hold voided already (the orphan sweep ran before the payout's events were read) books the
   * payout from the balance as it is (decision 355): the money left all the same.
   */
  async finish(m: EntityManager, payoutId: string, outcome: 'posted' | 'voided'): Promise<Hold | null> {
    const hold = await this.holds.findForUpdate(m, payoutId);
    const late = hold?.status === 'voided' && outcome === 'posted';
    if (!hold || (hold.status !== 'held' && !late)) return null;
    const now = this.clock.now();
    const locked = await this.books.lock(m, [
      shopAccount(hold.shopId, 'available', hold.currency),
      shopAccount(hold.shopId, 'reserved', hold.currency),
      { owner: 'clearing', provider: hold.provider, currency: hold.currency },
      { owner: 'fee_revenue', currency: hold.currency },
    ]);
    const total = hold.amount.plus(hold.fee);
    const lateBooking = late
      ? postVoidedHold(hold, locked.of(shopAccount(hold.shopId, 'available', hold.currency)))
      : null;
    await this.books.postNew(
      m,
      {
        id: randomUUID(),
        idempotencyKey: holdKey('payout', payoutId, outcome, hold.generation),
        kind: outcome === 'posted' ? 'payout_posted' : 'payout_voided',
        shopId: hold.shopId,
        sourceType: 'payout',
        sourceId: payoutId,
        provider: hold.provider,
        operationCurrency: hold.currency,
        gross: total,
        fee: outcome === 'posted' ? hold.fee : ZERO,
        net: outcome === 'posted' ? hold.amount : total,
        balanceCurrency: hold.currency,
        // A hold's post moves reserved only; a late one takes the money from available (and what
        // it lacks from receivable), as the hold would have.
        balanceAmount: lateBooking ? total.negated() : outcome === 'posted' ? ZERO : total,
        createdAt: now,
      },
      lateBooking ? lateBooking.postings : outcome === 'posted' ? postHold(hold) : voidHold(hold),
      locked,
    );
    await this.holds.finish(m, payoutId, outcome, now);
    if (lateBooking)
      this.logger.warn(
        `payout ${payoutId}: completed after its hold was voided; booked from the balance${
          lateBooking.owed.isZero() ? '' : `, ${lateBooking.owed.toFixed()} ${hold.currency} of it as the shop's debt`
        }`,
      );
    return { ...hold, status: outcome };
  }
}
