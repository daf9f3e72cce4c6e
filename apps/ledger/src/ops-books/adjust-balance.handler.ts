import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  adjustBalanceCommand,
  AdjustmentView,
  Envelope,
  errorReply,
  LedgerOpsCommandTypes,
  okReply,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { checkAdjustment, planAdjustment, shopAccount } from '@payments/ledger-domain';
import { formatAmount } from '@payments/money';
import { LedgerRepository, ZERO } from '../books/ledger.repository';
import { CLOCK, Clock } from '../tokens';
import { AdjustmentRepository, adjustmentView } from './adjustment.repository';

/** A refusal decided inside the database transaction: thrown so that it rolls back (no account opened). */
class Refused extends Error {
  constructor(readonly reply: Reply<never>) {
    super('refused');
  }
}

const KEY_PATH = "headers['Idempotency-Key']";

/**
 * Operators' manual adjustments (issue 29 item 6, decision 308), asked by the backoffice on
 * `ledger.ops-commands`; the audience guard has checked the operator before the handler runs
 * (decision 301). An adjustment is checked again by the backoffice's rules (libs/ledger-domain,
 * adjustments.ts), decided on the shop's locked available row (a debit it cannot cover is refused
 * and posts nothing) and posted once per shop and idempotency key: a retry answers the first.
 */
@Controller()
export class AdjustBalanceHandler {
  private readonly logger = new Logger(AdjustBalanceHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly books: LedgerRepository,
    private readonly adjustments: AdjustmentRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(LedgerOpsCommandTypes.adjustBalance)
  async adjust(@Payload() message: Envelope): Promise<Reply<AdjustmentView>> {
    const cmd = parsePayload(adjustBalanceCommand, message.payload, message.type);
    // The backoffice lets admins alone ask (decision 308); the ledger holds to it as well.
    if (cmd.operator?.role !== 'admin')
      return errorReply({ code: 'forbidden', detail: 'A manual adjustment needs the admin role.' });
    const { errors, checked } = checkAdjustment(cmd);
    if (!checked)
      return errorReply({ code: 'invalid', detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors });
    // The guard let no command through without its operator.
    const operator = { id: cmd.operator?.id ?? 'unknown', name: cmd.operator?.name ?? 'unknown' };
    const code = checked.currency.code;
    const available = shopAccount(cmd.shopId, 'available', code);
    try {
      return await this.dataSource.transaction(async (m) => {
        // The shop's available row (and the counterpart) locked first: concurrent adjustments and
        // payouts of the shop in this currency are decided one after the other.
        const locked = await this.books.lock(m, [available, { owner: 'adjustments', currency: code }]);
        const known = await this.adjustments.find(m, cmd.shopId, cmd.idempotencyKey);
        if (known) {
          const same =
            known.currency === code && checked.amount.equals(known.amount) && known.reason === checked.reason;
          if (!same) {
            const message = `was used for another adjustment (${formatAmount(known.amount)} ${known.currency}); use a new key`;
            throw new Refused(
              errorReply({
                code: 'unprocessable',
                detail: `${KEY_PATH}: ${message}`,
                errors: [{ path: KEY_PATH, message }],
              }),
            );
          }
          return okReply(adjustmentView(known, true));
        }
        const plan = planAdjustment(cmd.shopId, checked, locked.of(available));
        if (plan.kind === 'insufficient') {
          const message = `the available balance ${formatAmount(plan.available.toFixed())} ${code} cannot cover a debit of ${checked.amount.abs().toFixed()} ${code}`;
          throw new Refused(
            errorReply({
              code: 'unprocessable',
              detail: `amount: ${message}; nothing was posted`,
              errors: [{ path: 'amount', message }],
              extensions: { available: formatAmount(plan.available.toFixed()), currency: code },
            }),
          );
        }
        const id = randomUUID();
        const transactionId = randomUUID();
        const now = this.clock.now();
        const magnitude = checked.amount.abs();
        await this.books.post(
          m,
          {
            id: transactionId,
            idempotencyKey: `adjustment:${cmd.shopId.toLowerCase()}:${cmd.idempotencyKey}`,
            kind: 'manual_adjustment',
            shopId: cmd.shopId,
            sourceType: 'adjustment',
            sourceId: id,
            provider: null,
            operationCurrency: code,
            gross: magnitude,
            fee: ZERO,
            net: magnitude,
            balanceCurrency: code,
            balanceAmount: checked.amount,
            createdAt: now,
          },
          plan.postings,
          locked,
        );
        const row = await this.adjustments.insert(m, {
          id,
          shopId: cmd.shopId,
          idempotencyKey: cmd.idempotencyKey,
          currency: code,
          amount: checked.amount,
          reason: checked.reason,
          operator,
          transactionId,
          availableAfter: plan.availableAfter,
          createdAt: now,
        });
        this.logger.log(
          `manual adjustment ${id}: ${checked.amount.toFixed()} ${code} to shop ${cmd.shopId} by operator ${operator.id}`,
        );
        return okReply(adjustmentView(row, false));
      });
    } catch (err) {
      if (err instanceof Refused) return err.reply;
      throw err;
    }
  }
}
