import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { envelope, Envelope } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { DispatchQueue } from '@payments/provider-dispatch';
import type { TransferMove } from '@payments/transfers-domain';
import { TransferEntity } from './transfer.entity';
import type { TransferKindSpec } from './transfer-kind';
import { TransferRepository } from './transfer.repository';
import { toTransferStatusChanged } from './transfer-view';
import { TRANSFER_DISPATCH_QUEUE, TRANSFER_KIND, TRANSFER_OUTBOX } from './tokens';

type CausedBy = Pick<Envelope, 'eventId' | 'correlationId'>;

/**
 * The one way a transfer's state is written: the row, its status event in the outbox and, for a
 * new transfer, its dispatch row, all in the caller's transaction (create, consumer, dispatcher,
 * operator resolution).
 */
@Injectable()
export class TransferWrites {
  constructor(
    private readonly transfers: TransferRepository,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
    @Inject(TRANSFER_OUTBOX) private readonly outbox: Outbox,
    @Inject(TRANSFER_DISPATCH_QUEUE) private readonly queue: DispatchQueue,
  ) {}

  /**
   * Records a just-inserted transfer's first event and queues it for the provider (sent after
   * commit), unless it still waits for its details (a payout link).
   */
  async created(m: EntityManager, t: TransferEntity, now: Date, causedBy: CausedBy): Promise<void> {
    await this.publish(m, t, null, now, causedBy);
    if (this.kind.awaitsDetails?.(t)) return; // dispatched once the details arrive
    await this.queueDispatch(m, t, now);
  }

  /** Queues a transfer for the provider (sent after commit): at creation, or once its details arrive. */
  async queueDispatch(m: EntityManager, t: TransferEntity, now: Date): Promise<void> {
    await this.queue.enqueue(
      m,
      {
        dispatchId: `${this.kind.dispatch.idPrefix}_${randomUUID()}`,
        referenceId: t.id,
        provider: t.provider,
        amount: t.amount,
        currency: t.currency,
        tokenStandard: t.tokenStandard,
      },
      now,
    );
  }

  /** Moves a locked transfer to its next status, bumps its sequence and records the event. */
  async transition(
    m: EntityManager,
    t: TransferEntity,
    move: TransferMove & { reportedAmount?: string; reportedCurrency?: string },
    now: Date,
    causedBy?: CausedBy,
  ): Promise<void> {
    const previous = t.status;
    t.status = move.status;
    t.statusCode = move.statusCode;
    t.needActionReason = move.needActionReason;
    if (move.reportedAmount !== undefined) t.reportedAmount = move.reportedAmount;
    if (move.reportedCurrency !== undefined) t.reportedCurrency = move.reportedCurrency;
    t.sequence += 1;
    t.updatedAt = now;
    await this.transfers.writeTransition(m, t);
    await this.publish(m, t, previous, now, causedBy);
  }

  private async publish(
    m: EntityManager,
    t: TransferEntity,
    previousStatus: TransferEntity['status'] | null,
    now: Date,
    causedBy?: CausedBy,
  ): Promise<void> {
    await this.outbox.add(m, [
      {
        topic: this.kind.topics.events,
        key: t.id,
        envelope: envelope({
          type: this.kind.statusChangedType,
          payload: toTransferStatusChanged(this.kind, t, previousStatus),
          occurredAt: now,
          causedBy,
        }),
      },
    ]);
  }
}
