import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  AwaitingCreditList,
  CreditRelease,
  Envelope,
  errorReply,
  LedgerOpsCommandTypes,
  listAwaitingCreditsQuery,
  okReply,
  parsePayload,
  releaseCreditCommand,
  Reply,
} from '@payments/contracts';
import { releaseErrors } from '@payments/ledger-domain';
import { CLOCK, Clock } from '../tokens';
import { AwaitingCreditsRepository, awaitingCreditView } from './awaiting-credits.repository';

const REFUND_HOLD = 'refund hold';

/**
 * The credits waiting in suspense for a rate as operators read them, and an admin's release of a
 * parked one (decision 344), asked by the backoffice on `ledger.ops-commands`; the audience guard
 * has checked the operator before the handler runs (decision 301). A release moves no money: it
 * un-parks the credit's queue row so the next conversion sweep takes it again (decision 304), and
 * keeps who released it and why. Releasing a credit that is not parked changes nothing.
 */
@Controller()
export class AwaitingCreditsHandler {
  private readonly logger = new Logger(AwaitingCreditsHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly awaiting: AwaitingCreditsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(LedgerOpsCommandTypes.listAwaitingCredits)
  async list(@Payload() message: Envelope): Promise<Reply<AwaitingCreditList>> {
    const q = parsePayload(listAwaitingCreditsQuery, message.payload, message.type);
    return okReply(await this.awaiting.list(this.dataSource.manager, q, q.limit));
  }

  @MessagePattern(LedgerOpsCommandTypes.releaseCredit)
  async release(@Payload() message: Envelope): Promise<Reply<CreditRelease>> {
    const cmd = parsePayload(releaseCreditCommand, message.payload, message.type);
    // The backoffice lets admins alone ask (decision 344); the ledger holds to it as well.
    if (cmd.operator?.role !== 'admin')
      return errorReply({ code: 'forbidden', detail: 'Releasing a parked credit needs the admin role.' });
    const errors = releaseErrors(cmd);
    if (errors.length)
      return errorReply({ code: 'invalid', detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors });
    const operator = { id: cmd.operator.id, name: cmd.operator.name };
    return this.dataSource.transaction(async (m): Promise<Reply<CreditRelease>> => {
      const row = await this.awaiting.lock(m, cmd.creditId);
      if (!row) {
        const detail = (await this.awaiting.isCredit(m, cmd.creditId))
          ? 'That credit waits for no rate (converted, or refunded in full): there is nothing to release.'
          : 'No such credit.';
        return errorReply({ code: 'not_found', detail });
      }
      if (row.parked === null) return okReply({ credit: awaitingCreditView(row), released: false, wasParked: null });
      if (row.parked === REFUND_HOLD && (await this.awaiting.refundHeld(m, row.order_id))) {
        const message = `waits for a refund's hold on its suspense; it is released by itself when the hold is posted or voided`;
        return errorReply({
          code: 'unprocessable',
          detail: `creditId: ${message}`,
          errors: [{ path: 'creditId', message }],
        });
      }
      const released = await this.awaiting.release(m, row, cmd.reason.trim(), operator, this.clock.now());
      this.logger.log(
        `credit ${row.transaction_id} of order ${row.order_id} released by operator ${operator.id} (was parked: ${row.parked})`,
      );
      return okReply({ credit: awaitingCreditView(released), released: true, wasParked: row.parked });
    });
  }
}
