import { Inject, Logger, Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  Envelope,
  errorReply,
  LedgerCommandTypes,
  okReply,
  parsePayload,
  RefundRelease,
  RefundReservation,
  releaseRefundCommand,
  Reply,
  reserveRefundCommand,
} from '@payments/contracts';
import { bookCurrency, holdKey, planRefundHold, RefundHoldSource, shopAccount } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { statusOf } from '@payments/status-codes';
import { LedgerRepository } from '../books/ledger.repository';
import { UNATTRIBUTED_PROVIDER } from '../book-orders/order-booker';
import { AwaitingRateRepository } from '../convert-rates/awaiting-rate.repository';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { CLOCK, Clock } from '../tokens';
import { RefundHold, RefundHoldRepository } from './refund-hold.repository';
import { RefundHolds } from './refund-holds';

/** The catalogue's code of a refund the shop's balance cannot cover (retry allowed: the balance may grow). */
export const REFUND_NOT_COVERED = '1-06-03';

const view = (h: RefundHold): RefundReservation => ({
  refundId: h.refundId,
  orderId: h.orderId,
  currency: h.creditCurrency,
  amount: h.debit.toFixed(),
  status: h.status,
});

const refused = (detail: string): Reply<never> =>
  errorReply({
    code: 'unprocessable',
    detail,
    errors: [{ path: 'cost.amount', message: detail }],
    extensions: { ...statusOf(REFUND_NOT_COVERED), retryAllowed: true },
  });

/**
 * The first phase of a refund's hold, asked by the orders service before it accepts a refund
 * (decision 276, the pattern of decision 273): the debit at the original credit's rate moves from
 * available (or suspense, while the credit waits for a rate) to reserved, or the refund is refused.
 * The shop's rows are locked first, so concurrent refunds and payouts are decided one after the
 * other; a refund asked for again gets its hold back (idempotent by refund id), a command refused
 * gets its refusal back, even once another command of the refund was held (decision 354), and a
 * refund whose hold was voided is held anew or refused, as a new one would be (decision 355).
 */
@Controller()
export class ReserveRefundHandler {
  private readonly logger = new Logger(ReserveRefundHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly books: LedgerRepository,
    private readonly holds: RefundHoldRepository,
    private readonly refundHolds: RefundHolds,
    private readonly awaiting: AwaitingRateRepository,
    private readonly refusals: HoldRefusalRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(LedgerCommandTypes.reserveRefund)
  async reserve(@Payload() message: Envelope): Promise<Reply<RefundReservation>> {
    const cmd = parsePayload(reserveRefundCommand, message.payload, message.type);
    const amount = amountOf(cmd.amount);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      // The same command asked again (handled again after a crash, by the orders service or here):
      // the answer the merchant was given stands, whatever was booked since (decision 354).
      await this.refusals.lock(m, 'refund', cmd.refundId);
      const refusedBefore = await this.refusals.find(m, 'refund', cmd.refundId, cmd.attemptId);
      if (refusedBefore !== null) return refusedBefore;
      const { refundId: id, attemptId, shopId } = cmd;
      const refuse = (reply: Reply<never>) =>
        this.refusals.refuse(m, { kind: 'refund', id, attemptId, shopId, reply }, now);
      // A hold open or posted is this refund's: asked again, it answers it. A voided one holds
      // nothing, so the refund asked for again (its merchant's retry after the orphan sweep) is
      // decided on the books as they are, and held anew if they cover it (decision 355).
      // Its row is locked before the accounts, in the order the orphan sweep and the second phase take them.
      const known = await this.holds.findForUpdate(m, cmd.refundId);
      if (known && known.status !== 'voided') return okReply(view(known));
      await this.awaiting.lockWaiting(m, cmd.orderId);
      const credit = await this.books.originalCredit(m, cmd.orderId);
      if (!credit || credit.shopId.toLowerCase() !== cmd.shopId.toLowerCase())
        return refuse(
          refused(`order ${cmd.orderId} has no credit in the shop's books yet, so nothing covers its refund`),
        );
      const source: RefundHoldSource = credit.status === 'awaiting_rate' ? 'suspense' : 'available';
      const from = bookCurrency(credit.orderCurrency);
      const to = bookCurrency(source === 'suspense' ? credit.orderCurrency : credit.balanceCurrency);
      if (from.kind === 'invalid' || to.kind === 'invalid')
        throw new Error(`order ${cmd.orderId}: its credit's currency is no longer in the registry`);
      const account = shopAccount(cmd.shopId, source, to.currency.code);
      const locked = await this.books.lock(m, [account, shopAccount(cmd.shopId, 'reserved', to.currency.code)]);
      const plan = planRefundHold({
        shopId: cmd.shopId,
        amount,
        orderCurrency: from.currency,
        creditCurrency: to.currency,
        rate: source === 'suspense' ? null : credit.rate,
        source,
        balance: locked.of(account),
      });
      if (plan.kind === 'rejected')
        return refuse(
          errorReply({
            code: 'unprocessable',
            detail: `the refund cannot be made: cost.${plan.field} ${plan.reason}`,
            errors: [{ path: `cost.${plan.field}`, message: plan.reason }],
          }),
        );
      if (plan.kind === 'insufficient')
        return refuse(
          refused(
            `the ${source} balance ${plan.balance.toFixed()} ${to.currency.code} does not cover the refund's debit of ${plan.debit.toFixed()} ${to.currency.code}`,
          ),
        );
      const hold: RefundHold = {
        refundId: cmd.refundId,
        orderId: cmd.orderId,
        shopId: cmd.shopId,
        provider: credit.provider ?? UNATTRIBUTED_PROVIDER,
        orderCurrency: from.currency.code,
        amount,
        creditCurrency: to.currency.code,
        debit: plan.debit,
        source,
        status: 'held',
        generation: known ? known.generation + 1 : 1,
      };
      await this.books.postNew(
        m,
        {
          id: randomUUID(),
          idempotencyKey: holdKey('refund', id, 'reserved', hold.generation),
          kind: 'refund_reserved',
          shopId: cmd.shopId,
          sourceType: 'order',
          sourceId: cmd.orderId,
          provider: hold.provider,
          operationCurrency: hold.orderCurrency,
          gross: amount,
          fee: amountOf('0'),
          net: amount,
          balanceCurrency: hold.creditCurrency,
          balanceAmount: plan.debit.negated(),
          createdAt: now,
        },
        plan.postings,
        locked,
      );
      if (known) {
        await this.holds.holdAgain(m, hold, now);
        this.logger.log(`refund ${id}: its voided hold asked for again, held anew (generation ${hold.generation})`);
      } else await this.holds.insert(m, hold, now);
      return okReply(view(hold));
    });
  }

  /** A refund the orders service refused after all (a concurrent refund took what was left): its hold is voided. */
  @MessagePattern(LedgerCommandTypes.releaseRefund)
  async release(@Payload() message: Envelope): Promise<Reply<RefundRelease>> {
    const cmd = parsePayload(releaseRefundCommand, message.payload, message.type);
    const done = await this.dataSource.transaction((m) => this.refundHolds.void(m, cmd.refundId));
    if (done) this.logger.log(`refund ${cmd.refundId}: hold released, the refund was never created`);
    return okReply({ refundId: cmd.refundId, released: done !== null });
  }
}
