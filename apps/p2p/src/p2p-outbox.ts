import { EntityManager } from 'typeorm';
import { envelope, Envelope, P2pEventTypes, P2pStatus, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import type { TransferMove } from '@payments/transfers-domain';
import { P2pEntity } from './p2p.entity';
import { toP2pStatusChanged } from './p2p-view';

/** Records a P2P transaction's status change in the outbox, in the transaction that made it. */
export async function publishStatusChange(
  outbox: Outbox,
  m: EntityManager,
  p2p: P2pEntity,
  previousStatus: P2pStatus | null,
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
): Promise<void> {
  await outbox.add(m, [
    {
      topic: Topics.p2pEvents,
      key: p2p.id,
      envelope: envelope({
        type: P2pEventTypes.statusChanged,
        payload: toP2pStatusChanged(p2p, previousStatus),
        occurredAt: now,
        causedBy,
      }),
    },
  ]);
}

/** Moves a locked P2P transaction to its next status, bumps its sequence and records the event: one transaction. */
export async function applyTransition(
  outbox: Outbox,
  m: EntityManager,
  p2p: P2pEntity,
  t: TransferMove & { reportedAmount?: string; reportedCurrency?: string },
  now: Date,
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>,
): Promise<void> {
  const previous = p2p.status;
  p2p.status = t.status;
  p2p.statusCode = t.statusCode;
  p2p.needActionReason = t.needActionReason;
  if (t.reportedAmount !== undefined) p2p.reportedAmount = t.reportedAmount;
  if (t.reportedCurrency !== undefined) p2p.reportedCurrency = t.reportedCurrency;
  p2p.sequence += 1;
  p2p.updatedAt = now;
  await m.getRepository(P2pEntity).save(p2p);
  await publishStatusChange(outbox, m, p2p, previous, now, causedBy);
}
