import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Envelope, OrderEventTypes } from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox, isInfrastructureFault } from '@payments/messaging';
import { GroupCommit } from '../books/group-commit';
import { LEDGER_INBOX } from '../tokens';
import { OrderBooker } from './order-booker';
import { OrderBooking, plainlyMovesNoMoney, toOrderBooking, UnbookableEvent } from './order-event';

type Booked = { message: Envelope; booking: OrderBooking };

/**
 * `orders.events`: a partition's batch is booked in one database transaction with its inbox rows
 * (a redelivered event finds its id taken and posts nothing; the transaction's idempotency key
 * is the event id as a second guard), together with the other partitions' batches handed over at
 * the same time (decision 353). Status changes that move no money cost no database work.
 */
@Controller()
export class OrderEventsConsumer {
  private readonly group = new GroupCommit<Booked>(
    (bookings) => this.bookTogether(bookings),
    (err) =>
      isInfrastructureFault(err)
        ? 'everyone'
        : err instanceof BatchMessageFailure
          ? (b) => b.message.eventId.toLowerCase() === err.eventId.toLowerCase()
          : 'unknown',
  );

  constructor(
    @Inject(LEDGER_INBOX) private readonly inbox: Inbox,
    private readonly booker: OrderBooker,
  ) {}

  @EventPattern(OrderEventTypes.statusChanged, BATCH_HANDLER)
  async book(@Payload() messages: Envelope[]): Promise<void> {
    const bookings: Booked[] = [];
    for (const message of messages) {
      if (plainlyMovesNoMoney(message.payload)) continue;
      const booking = named(message, () => toOrderBooking(message));
      if (booking) bookings.push({ message, booking });
    }
    if (bookings.length === 0) return;
    await this.group.submit(bookings);
  }

  /** One transaction: the inbox rows of `bookings`, then the booking of those seen for the first time. */
  private async bookTogether(bookings: readonly Booked[]): Promise<void> {
    await this.inbox.processBatch(
      bookings.map((b) => b.message),
      async (m, fresh) => {
        const seen = new Set<string>();
        const todo = bookings.filter(({ booking }) => {
          if (!fresh.has(booking.eventId) || seen.has(booking.eventId)) return false;
          seen.add(booking.eventId);
          return true;
        });
        try {
          await this.booker.book(
            m,
            todo.map((t) => t.booking),
          );
        } catch (err) {
          // The event at fault is dead-lettered alone; the batch is booked again without it.
          throw err instanceof UnbookableEvent ? new BatchMessageFailure(err.eventId, err) : err;
        }
      },
    );
  }
}

/** A message the books cannot read is named, so it alone is dead-lettered. */
function named<T>(message: Envelope, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new BatchMessageFailure(message.eventId, err);
  }
}
