import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  Envelope,
  errorReply,
  okReply,
  parsePayload,
  PayoutCommandTypes,
  PayoutView,
  Reply,
  resolvePayoutCommand,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { resolveByOperator } from '@payments/transfers-domain';
import { PayoutRepository } from '../payout.repository';
import { toPayoutView } from '../payout-view';
import { applyTransition } from '../payouts-outbox';
import { CLOCK, Clock, PAYOUTS_OUTBOX } from '../tokens';

@Controller()
export class ResolvePayoutHandler {
  private readonly logger = new Logger(ResolvePayoutHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    @Inject(PAYOUTS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** An operator completes or fails a payout in need_action; anything else is a 409 with its status. */
  @MessagePattern(PayoutCommandTypes.resolve)
  async resolve(@Payload() message: Envelope): Promise<Reply<PayoutView>> {
    const cmd = parsePayload(resolvePayoutCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const payout = await this.payouts.findForUpdate(m, cmd.payoutId);
      if (!payout) return errorReply({ code: 'not_found', detail: `payout ${cmd.payoutId} does not exist` });
      const result = resolveByOperator('payout', payout, cmd.action);
      if (result.kind === 'rejected')
        return errorReply({ code: 'conflict', detail: result.reason, extensions: { currentStatus: payout.status } });
      await applyTransition(this.outbox, m, payout, result, now, message);
      this.logger.log(`payout ${payout.id}: ${cmd.action} by an operator → ${result.status} ${result.statusCode}`);
      return okReply(toPayoutView(payout));
    });
  }
}
