import { Inject, Injectable, Logger } from '@nestjs/common';
import { ContractViolation, Envelope, parsePayload, providerEvent, UUID_PATTERN } from '@payments/contracts';
import { Inbox } from '@payments/messaging';
import { CLOCK, Clock, PaymentsMetrics } from '@payments/platform';
import { foldTransferEvent } from '@payments/transfers-domain';
import type { TransferKindSpec } from './transfer-kind';
import { TransferRepository } from './transfer.repository';
import { TransferWrites } from './transfer-writes';
import { TRANSFER_INBOX, TRANSFER_KIND } from './tokens';

@Injectable()
export class ProviderEventConsumer {
  private readonly logger = new Logger(ProviderEventConsumer.name);

  constructor(
    private readonly transfers: TransferRepository,
    private readonly writes: TransferWrites,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
    @Inject(TRANSFER_INBOX) private readonly inbox: Inbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Load, fold, persist with the outbox row, acknowledge: in the order of the transfer's partition. */
  async apply(message: Envelope): Promise<void> {
    const event = parsePayload(providerEvent, message.payload, message.type);
    if (event.kind !== this.kind.kind) return; // orders and the other transfer kind have their own services
    if (!UUID_PATTERN.test(event.reference))
      throw new ContractViolation(`reference "${event.reference}" is not a ${this.kind.noun} id`);
    const now = this.clock.now();

    const outcome = await this.inbox.process(message, async (m) => {
      const transfer = await this.transfers.findForUpdate(m, event.reference);
      if (!transfer) {
        // Counted where it is found out: callbacks-ingest cannot know our ids; the event is dead-lettered.
        PaymentsMetrics.providerCallbacks.inc({ provider: event.providerCode, result: 'unknown_reference' });
        throw new ContractViolation(`provider event for unknown ${this.kind.noun} ${event.reference}`);
      }
      const result = foldTransferEvent(this.kind.kind, transfer, event);
      if (result.kind === 'transition') await this.writes.transition(m, transfer, result, now, message);
      return result;
    });

    const about = `${this.kind.kind} ${event.reference}: ${event.status}`;
    if (outcome.kind === 'duplicate') this.logger.log(`provider event ${message.eventId} already applied`);
    else if (outcome.result.kind === 'noop') this.logger.log(`${about} ignored (${outcome.result.reason})`);
    else this.logger.log(`${about} → ${outcome.result.status} ${outcome.result.statusCode}`);
  }
}
