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
import { P2pRepository } from '../p2p.repository';
import { applyTransition } from '../p2p-outbox';
import { CLOCK, Clock, P2P_INBOX, P2P_OUTBOX } from '../tokens';

@Controller()
export class ProviderEventConsumer {
  private readonly logger = new Logger(ProviderEventConsumer.name);

  constructor(
    private readonly p2p: P2pRepository,
    @Inject(P2P_INBOX) private readonly inbox: Inbox,
    @Inject(P2P_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Load, fold, persist with the outbox row, acknowledge: in the order of the transaction's partition. */
  @EventPattern(ProviderEventTypes.event)
  async apply(@Payload() message: Envelope): Promise<void> {
    const event = parsePayload(providerEvent, message.payload, message.type);
    if (event.kind !== 'p2p') return; // orders and payouts have their own services
    if (!UUID_PATTERN.test(event.reference))
      throw new ContractViolation(`reference "${event.reference}" is not a P2P transaction id`);
    const now = this.clock.now();

    const outcome = await this.inbox.process(message, async (m) => {
      const p2p = await this.p2p.findForUpdate(m, event.reference);
      if (!p2p) throw new ContractViolation(`provider event for unknown P2P transaction ${event.reference}`);
      const result = foldTransferEvent('p2p', p2p, event);
      if (result.kind === 'transition') await applyTransition(this.outbox, m, p2p, result, now, message);
      return result;
    });

    if (outcome.kind === 'duplicate') this.logger.log(`provider event ${message.eventId} already applied`);
    else if (outcome.result.kind === 'noop')
      this.logger.log(`p2p ${event.reference}: ${event.status} ignored (${outcome.result.reason})`);
    else
      this.logger.log(
        `p2p ${event.reference}: ${event.status} → ${outcome.result.status} ${outcome.result.statusCode}`,
      );
  }
}
