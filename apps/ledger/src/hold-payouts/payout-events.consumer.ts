import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Envelope, parsePayload, PayoutEventTypes, payoutStatusChanged } from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox } from '@payments/messaging';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, Clock, LEDGER_INBOX } from '../tokens';
import { HoldRepository } from './hold.repository';
import { PayoutHolds } from './payout-holds';

/** `payouts.events`: a completed payout posts its hold, a failed or cancelled one voids it; other changes move nothing. */
@Controller()
export class PayoutEventsConsumer {
  private readonly logger = new Logger(PayoutEventsConsumer.name);

  constructor(
    @Inject(LEDGER_INBOX) private readonly inbox: Inbox,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly holds: PayoutHolds,
    private readonly holdRows: HoldRepository,
    @Inject(CLOCK) private readonly clock: Clock,
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
    // Any event of a payout says it exists: its hold is no orphan (decision 277). Idempotent, no inbox needed.
    const seen = messages.flatMap((message) => {
      const id = (message.payload as { payoutId?: unknown } | null)?.payoutId;
      return typeof id === 'string' ? [id] : [];
    });
    if (seen.length > 0) await this.holdRows.confirm(this.dataSource.manager, [...new Set(seen)], this.clock.now());
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
