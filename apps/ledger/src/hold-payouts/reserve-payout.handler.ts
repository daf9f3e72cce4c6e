import { Controller, Inject, Logger } from '@nestjs/common';
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
  PayoutRelease,
  PayoutReservation,
  releasePayoutCommand,
  Reply,
  reservePayoutCommand,
} from '@payments/contracts';
import { holdKey, ledgerCurrency, planHold, shopAccount } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { statusOf } from '@payments/status-codes';
import { LedgerRepository } from '../books/ledger.repository';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { CLOCK, Clock } from '../tokens';
import { Hold, HoldRepository } from './hold.repository';
import { PayoutHolds } from './payout-holds';

/** The catalogue's code of a payout the available balance cannot cover (retry allowed: the balance may grow). */
export const INSUFFICIENT_BALANCE = '1-06-02';

const view = (h: Hold, note?: string): PayoutReservation => ({
  payoutId: h.payoutId,
  currency: h.currency,
  amount: h.amount.toFixed(),
  fee: h.fee.toFixed(),
  status: h.status,
  ...(note ? { note } : {}),
});

const insufficient = (detail: string): Reply<never> =>
  errorReply({
    code: 'unprocessable',
    detail,
    errors: [{ path: 'payout.cost.amount', message: detail }],
    extensions: { ...statusOf(INSUFFICIENT_BALANCE), retryAllowed: true },
  });

/**
 * The first phase of a payout's hold, asked by the payouts service before it accepts a payout:
 * amount + fee move from available to reserved, or the payout is refused. The shop's available
 * and reserved rows are locked first, so concurrent requests are decided one after the other
 * against what is left; a payout asked for again gets its hold back (idempotent by payout id), a
 * command refused gets its refusal back (decision 354), and a payout whose hold was voided is held
 * anew or refused, as a new one would be (decision 355).
 */
@Controller()
export class ReservePayoutHandler {
  private readonly logger = new Logger(ReservePayoutHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly books: LedgerRepository,
    private readonly holds: HoldRepository,
    private readonly payoutHolds: PayoutHolds,
    private readonly refusals: HoldRefusalRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(LedgerCommandTypes.reservePayout)
  async reserve(@Payload() message: Envelope): Promise<Reply<PayoutReservation>> {
    const cmd = parsePayload(reservePayoutCommand, message.payload, message.type);
    const currency = ledgerCurrency(cmd.cost.currency, cmd.cost.tokenStandard);
    if (currency.kind === 'invalid')
      return errorReply({
        code: 'invalid',
        detail: `payout.cost.currency: ${currency.reason}`,
        errors: [{ path: 'payout.cost.currency', message: currency.reason }],
      });
    const c = currency.currency;
    const amount = amountOf(cmd.cost.amount);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      // The same command asked again (handled again after a crash, by the payouts service or
      // here): the answer the merchant was given stands, whatever was booked since (decision 354).
      await this.refusals.lock(m, 'payout', cmd.payoutId);
      const refusedBefore = await this.refusals.find(m, 'payout', cmd.payoutId, cmd.attemptId);
      if (refusedBefore !== null) return refusedBefore;
      const { payoutId: id, attemptId, shopId } = cmd;
      const refuse = (reply: Reply<never>) =>
        this.refusals.refuse(m, { kind: 'payout', id, attemptId, shopId, reply }, now);
      // A hold open or posted, or voided by its own payout's failure, is this payout's: asked
      // again, it answers it. One voided before any event of its payout came (the orphan sweep, a
      // release) holds nothing for a payout that was never created, so the payout asked for again
      // (its merchant's retry) is decided on the books as they are, and held anew if they cover it
      // (decision 355). Its row is locked before the accounts, in the order the orphan sweep and
      // the second phase take them.
      const known = await this.holds.findForUpdate(m, cmd.payoutId);
      if (known && (known.status !== 'voided' || known.confirmed)) return okReply(view(known));
      const locked = await this.books.lock(m, [
        shopAccount(cmd.shopId, 'available', c.code),
        shopAccount(cmd.shopId, 'reserved', c.code),
      ]);
      const available = locked.of(shopAccount(cmd.shopId, 'available', c.code));
      const plan = planHold({
        shopId: cmd.shopId,
        amount,
        currency: c,
        fee: await this.books.feeSchedule(m, cmd.shopId, cmd.method, c.code),
        available,
      });
      switch (plan.kind) {
        case 'rejected':
          // Kept too: a fee above the amount depends on the shop's fee schedule, which may change.
          return refuse(
            errorReply({
              code: 'unprocessable',
              detail: `the payout cannot be made: ${plan.reason}`,
              errors: [{ path: `payout.cost.${plan.field === 'fee' ? 'amount' : plan.field}`, message: plan.reason }],
            }),
          );
        case 'insufficient':
          return refuse(
            insufficient(
              `the available balance ${available.toFixed()} ${c.code} does not cover ${amount.toFixed()} plus the fee ${plan.fee.toFixed()}`,
            ),
          );
        case 'held': {
          const hold: Hold = {
            payoutId: cmd.payoutId,
            shopId: cmd.shopId,
            provider: cmd.provider,
            currency: c.code,
            amount,
            fee: plan.fee,
            status: 'held',
            generation: known ? known.generation + 1 : 1,
          };
          await this.books.postNew(
            m,
            {
              id: randomUUID(),
              idempotencyKey: holdKey('payout', id, 'reserved', hold.generation),
              kind: 'payout_reserved',
              shopId: cmd.shopId,
              sourceType: 'payout',
              sourceId: cmd.payoutId,
              provider: cmd.provider,
              operationCurrency: c.code,
              gross: plan.total,
              fee: plan.fee,
              net: amount,
              balanceCurrency: c.code,
              balanceAmount: plan.total.negated(),
              createdAt: now,
            },
            plan.postings,
            locked,
          );
          if (known) {
            await this.holds.holdAgain(m, hold, now);
            this.logger.log(`payout ${id}: its voided hold asked for again, held anew (generation ${hold.generation})`);
          } else await this.holds.insert(m, hold, now);
          return okReply(view(hold));
        }
      }
    });
  }

  /** A payout whose creation lost a race (its merchant id taken meanwhile): its hold is voided. */
  @MessagePattern(LedgerCommandTypes.releasePayout)
  async release(@Payload() message: Envelope): Promise<Reply<PayoutRelease>> {
    const cmd = parsePayload(releasePayoutCommand, message.payload, message.type);
    const done = await this.dataSource.transaction((m) => this.payoutHolds.finish(m, cmd.payoutId, 'voided'));
    if (done) this.logger.log(`payout ${cmd.payoutId}: hold released, the payout was never created`);
    return okReply({ payoutId: cmd.payoutId, released: done !== null });
  }
}
