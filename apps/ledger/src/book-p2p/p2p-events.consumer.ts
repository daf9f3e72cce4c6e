import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Envelope, P2pEventTypes } from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox } from '@payments/messaging';
import { LEDGER_INBOX } from '../tokens';
import { UnbookableEvent } from '../book-orders/order-event';
import { P2pCompletion, P2pFeeBooker, toP2pCompletion } from './p2p-fee.booker';

/**
 * `p2p.events`: a P2P transaction's completion posts the shop's fee (decision 312), a partition's
 * batch in one database transaction with its inbox rows, so a redelivered event posts nothing.
 * Every other status, need_action included, moves no money and costs no database work.
 */
@Controller()
export class P2pEventsConsumer {
  constructor(
    @Inject(LEDGER_INBOX) private readonly inbox: Inbox,
    private readonly booker: P2pFeeBooker,
  ) {}

  @EventPattern(P2pEventTypes.statusChanged, BATCH_HANDLER)
  async book(@Payload() messages: Envelope[]): Promise<void> {
    const completions: { message: Envelope; completion: P2pCompletion }[] = [];
    for (const message of messages) {
      let completion: P2pCompletion | null;
      try {
        completion = toP2pCompletion(message);
      } catch (err) {
        throw new BatchMessageFailure(message.eventId, err);
      }
      if (completion) completions.push({ message, completion });
    }
    if (completions.length === 0) return;
    await this.inbox.processBatch(
      completions.map((c) => c.message),
      async (m, fresh) => {
        const seen = new Set<string>();
        const todo = completions.filter(({ completion: c }) => {
          if (!fresh.has(c.eventId) || seen.has(c.eventId)) return false;
          seen.add(c.eventId);
          return true;
        });
        try {
          await this.booker.book(
            m,
            todo.map((t) => t.completion),
          );
        } catch (err) {
          // The event at fault is dead-lettered alone; the batch is booked again without it.
          throw err instanceof UnbookableEvent ? new BatchMessageFailure(err.eventId, err) : err;
        }
      },
    );
  }
}
