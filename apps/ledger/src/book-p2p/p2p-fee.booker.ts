import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import {
  AccountRef,
  checkPostings,
  ledgerCurrency,
  LedgerCurrency,
  P2P_FEE_METHOD,
  P2pFeePlan,
  planP2pFee,
  shopAccount,
} from '@payments/ledger-domain';
import { Envelope, p2pStatusChanged, parsePayload } from '@payments/contracts';
import { Amount, amountOf } from '@payments/money';
import { LedgerRepository, TransactionToPost } from '../books/ledger.repository';
import { UnbookableEvent } from '../book-orders/order-event';

/** What the books take from a P2P transaction's status change: its completion. */
export interface P2pCompletion {
  eventId: string;
  occurredAt: Date;
  p2pId: string;
  shopId: string;
  currency: LedgerCurrency;
  amount: Amount;
}

/** The completion a status change tells of, or null when it moves no money (every other status; need_action waits). */
export function toP2pCompletion(message: Envelope): P2pCompletion | null {
  const p = parsePayload(p2pStatusChanged, message.payload, message.type);
  if (p.status !== 'completed' || p.previousStatus === 'completed') return null;
  const c = ledgerCurrency(p.cost.currency, p.cost.tokenStandard);
  if (c.kind === 'invalid') throw new UnbookableEvent(message.eventId, `p2p ${p.p2pId}: cost.currency: ${c.reason}`);
  return {
    eventId: message.eventId.toLowerCase(),
    occurredAt: new Date(message.occurredAt),
    p2pId: p.p2pId,
    shopId: p.shopId,
    currency: c.currency,
    amount: amountOf(p.cost.amount),
  };
}

/**
 * Books the fees of a partition batch of P2P completions in the caller's transaction (decision
 * 312): every account they can touch locked up front in key order, then each completion's fee
 * taken from available, the rest owed (receivable), all of it to fee revenue. One `p2p_fee` per
 * P2P transaction (a unique index), keyed by the event. A batch's fees are posted in a constant
 * number of statements and tell each shop's balance once (decisions 339, 340).
 */
@Injectable()
export class P2pFeeBooker {
  private readonly logger = new Logger(P2pFeeBooker.name);

  constructor(private readonly books: LedgerRepository) {}

  async book(m: EntityManager, completions: readonly P2pCompletion[]): Promise<void> {
    if (completions.length === 0) return;
    const feeOf = await this.books.feeSchedules(
      m,
      completions.map((c) => ({ shopId: c.shopId, method: P2P_FEE_METHOD, currency: c.currency.code })),
    );
    const locked = await this.books.lock(
      m,
      completions.flatMap((c): AccountRef[] => [
        shopAccount(c.shopId, 'available', c.currency.code),
        shopAccount(c.shopId, 'receivable', c.currency.code),
        { owner: 'fee_revenue', currency: c.currency.code },
      ]),
    );
    // A fee is decided on available as the fees before it leave it, so each is planned on a copy in
    // order and all are posted at once (decision 340). One whose P2P transaction already has its
    // fee (earlier, or earlier in the batch) is left out first, as posting it would post nothing.
    const booked = await this.books.existingSources(
      m,
      'p2p_fee',
      completions.map((c) => c.p2pId),
    );
    const running = locked.copy();
    const fees: (TransactionToPost & { c: P2pCompletion; plan: Extract<P2pFeePlan, { kind: 'charged' }> })[] = [];
    for (const c of completions) {
      if (booked.has(c.p2pId)) {
        this.logger.log(`p2p ${c.p2pId}: fee already booked`);
        continue;
      }
      booked.add(c.p2pId);
      const plan = planP2pFee({
        shopId: c.shopId,
        gross: c.amount,
        currency: c.currency,
        fee: feeOf(c.shopId, P2P_FEE_METHOD, c.currency.code),
        available: running.of(shopAccount(c.shopId, 'available', c.currency.code)),
      });
      if (plan.kind === 'rejected')
        throw new UnbookableEvent(c.eventId, `p2p ${c.p2pId}: ${plan.field}: ${plan.reason}`);
      if (plan.kind === 'none') continue;
      const check = checkPostings(plan.postings, new Map([[c.currency.code, c.currency]]));
      if (check.kind === 'unbalanced') throw new Error(`p2p ${c.p2pId}: ${check.reason}`);
      running.apply(plan.postings);
      fees.push({
        c,
        plan,
        tx: {
          id: randomUUID(),
          idempotencyKey: c.eventId,
          kind: 'p2p_fee',
          shopId: c.shopId,
          sourceType: 'p2p',
          sourceId: c.p2pId,
          provider: null,
          operationCurrency: c.currency.code,
          gross: c.amount,
          fee: plan.fee,
          net: c.amount.minus(plan.fee),
          balanceCurrency: c.currency.code,
          balanceAmount: plan.fee.negated(),
          createdAt: c.occurredAt,
        },
        postings: plan.postings,
      });
    }
    // The unique index stays the guard: a fee another instance booked meanwhile posts nothing here
    // (the fees after it then took less from available than they could, never more).
    const posted = await this.books.postMany(m, fees, locked);
    for (const { c, plan, tx } of fees) {
      if (!posted.has(tx.id)) this.logger.log(`p2p ${c.p2pId}: fee already booked`);
      else if (plan.owed.greaterThan(0))
        this.logger.warn(
          `p2p ${c.p2pId}: the available balance covered ${plan.fromAvailable.toFixed()} of the fee ${plan.fee.toFixed()} ${c.currency.code}; ${plan.owed.toFixed()} booked as the shop's debt`,
        );
    }
  }
}
