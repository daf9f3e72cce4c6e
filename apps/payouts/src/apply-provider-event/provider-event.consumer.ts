import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  ContractViolation,
  Envelope,
  parsePayload,
  providerEvent,
  ProviderEventTypes,
  UUID_PATTERN,
} from '@payments/contracts';
import { Inbox, Outbox } from '@payments/messaging';
import { foldTransferEvent } from '@payments/transfers-domain';
import { PayoutRepository } from '../payout.repository';
import { applyTransition } from '../payouts-outbox';
import { CLOCK, Clock, PAYOUTS_INBOX, PAYOUTS_OUTBOX } from '../tokens';

@Controller()
export class ProviderEventConsumer {
  private readonly logger = new Logger(ProviderEventConsumer.name);

  constructor(
    private readonly payouts: PayoutRepository,
    @Inject(PAYOUTS_INBOX) private readonly inbox: Inbox,
    @Inject(PAYOUTS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Load, fold, persist with the outbox row, acknowledge: in the order of the payout's partition. */
  @EventPattern(ProviderEventTypes.event)
  async apply(@Payload() message: Envelope): Promise<void> {
    const event = parsePayload(providerEvent, message.payload, message.type);
    if (event.kind !== 'payout') return; // orders and P2P have their own services
    if (!UUID_PATTERN.test(event.reference))
      throw new ContractViolation(`reference "${event.reference}" is not a payout id`);
    const now = this.clock.now();

    const outcome = await this.inbox.process(message, async (m) => {
      const payout = await this.payouts.findForUpdate(m, event.reference);
      if (!payout) throw new ContractViolation(`provider event for unknown payout ${event.reference}`);
      const result = foldTransferEvent('payout', payout, event);
      if (result.kind === 'transition') await applyTransition(this.outbox, m, payout, result, now, message);
      return result;
    });

    if (outcome.kind === 'duplicate') this.logger.log(`provider event ${message.eventId} already applied`);
    else if (outcome.result.kind === 'noop')
      this.logger.log(`payout ${event.reference}: ${event.status} ignored (${outcome.result.reason})`);
    else
      this.logger.log(
        `payout ${event.reference}: ${event.status} → ${outcome.result.status} ${outcome.result.statusCode}`,
      );
  }
}
