import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { postHold, shopAccount, voidHold } from '@payments/ledger-domain';
import { ZERO, LedgerRepository } from '../books/ledger.repository';
import { CLOCK, Clock } from '../tokens';
import { Hold, HoldRepository } from './hold.repository';

/**
 * The second phase of a payout's hold (TigerBeetle's post or void of a pending transfer): on
 * success the reserve leaves the shop, on failure or cancellation it goes back to available. A
 * hold finishes once; whatever comes after is a no-op.
 */
@Injectable()
export class PayoutHolds {
  constructor(
    private readonly books: LedgerRepository,
    private readonly holds: HoldRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async finish(m: EntityManager, payoutId: string, outcome: 'posted' | 'voided'): Promise<Hold | null> {
    const hold = await this.holds.findForUpdate(m, payoutId);
    if (!hold || hold.status !== 'held') return null;
    const now = this.clock.now();
    const locked = await this.books.lock(m, [
      shopAccount(hold.shopId, 'available', hold.currency),
      shopAccount(hold.shopId, 'reserved', hold.currency),
      { owner: 'clearing', provider: hold.provider, currency: hold.currency },
      { owner: 'fee_revenue', currency: hold.currency },
    ]);
    const total = hold.amount.plus(hold.fee);
    await this.books.post(
      m,
      {
        id: randomUUID(),
        idempotencyKey: `payout:${payoutId}:${outcome}`,
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
        balanceAmount: outcome === 'posted' ? ZERO : total,
        createdAt: now,
      },
      outcome === 'posted' ? postHold(hold) : voidHold(hold),
      locked,
    );
    await this.holds.finish(m, payoutId, outcome, now);
    return { ...hold, status: outcome };
  }
}
