import { EntityManager } from 'typeorm';
import { envelope, Envelope, PayoutEventTypes, PayoutStatus, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import type { TransferMove } from '@payments/transfers-domain';
import { PayoutEntity } from './payout.entity';
import { toPayoutStatusChanged } from './payout-view';

/** Records a payout's status change in the outbox, in the transaction that made it. */
export async function publishStatusChange(
  outbox: Outbox,
  m: EntityManager,
  payout: PayoutEntity,
  previousStatus: PayoutStatus | null,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
): Promise<void> {
  await outbox.add(m, [
    {
      topic: Topics.payoutsEvents,
      key: payout.id,
      envelope: envelope({
        type: PayoutEventTypes.statusChanged,
        payload: toPayoutStatusChanged(payout, previousStatus),
        occurredAt: now,
        causedBy,
      }),
    },
  ]);
}

/** Moves a locked payout to its next status, bumps its sequence and records the event: one transaction. */
export async function applyTransition(
  outbox: Outbox,
  m: EntityManager,
  payout: PayoutEntity,
  t: TransferMove & { reportedAmount?: string; reportedCurrency?: string },
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
): Promise<void> {
  const previous = payout.status;
  payout.status = t.status;
  payout.statusCode = t.statusCode;
  payout.needActionReason = t.needActionReason;
  if (t.reportedAmount !== undefined) payout.reportedAmount = t.reportedAmount;
  if (t.reportedCurrency !== undefined) payout.reportedCurrency = t.reportedCurrency;
  payout.sequence += 1;
  payout.updatedAt = now;
  await m.getRepository(PayoutEntity).save(payout);
  await publishStatusChange(outbox, m, payout, previous, now, causedBy);
}
