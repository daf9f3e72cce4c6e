import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Envelope, parsePayload, PayoutEventTypes, payoutStatusChanged } from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox } from '@payments/messaging';
import { LEDGER_INBOX } from '../tokens';
import { PayoutHolds } from './payout-holds';

/** `payouts.events`: a completed payout posts its hold, a failed or cancelled one voids it; other changes move nothing. */
@Controller()
export class PayoutEventsConsumer {
  private readonly logger = new Logger(PayoutEventsConsumer.name);

  constructor(
    @Inject(LEDGER_INBOX) private readonly inbox: Inbox,
    private readonly holds: PayoutHolds,
  ) {}

  @EventPattern(PayoutEventTypes.statusChanged, BATCH_HANDLER)
  async book(@Payload() messages: Envelope[]): Promise<void> {
    const finals = messages.flatMap((message) => {
      let p;
      try {
        p = parsePayload(payoutStatusChanged, message.payload, message.type);
      } catch (err) {
        throw new BatchMessageFailure(message.eventId, err);
      }
      const outcome =
        p.status === 'completed' ? 'posted' : p.status === 'failed' || p.status === 'cancelled' ? 'voided' : null;
      return outcome ? [{ message, payoutId: p.payoutId, outcome: outcome as 'posted' | 'voided' }] : [];
    });
    if (finals.length === 0) return;
    await this.inbox.processBatch(
      finals.map((f) => f.message),
      async (m, fresh) => {
        for (const f of finals) {
          if (!fresh.has(f.message.eventId.toLowerCase())) continue;
          const done = await this.holds.finish(m, f.payoutId, f.outcome);
          if (!done)
            this.logger.log(`payout ${f.payoutId}: no open hold to ${f.outcome === 'posted' ? 'post' : 'void'}`);
        }
      },
    );
  }
}
