import { randomUUID } from 'node:crypto';
import { Envelope, OrderEventTypes, OrderStatuses } from '@payments/contracts';
import { plainlyMovesNoMoney, toOrderBooking } from './order-event';

function event(payload: Record<string, unknown>): Envelope {
  return {
    eventId: randomUUID(),
    type: OrderEventTypes.statusChanged,
    version: 1,
    occurredAt: new Date().toISOString(),
    correlationId: randomUUID(),
    causationId: null,
    payload,
  } as Envelope;
}

const base = () => ({
  orderId: randomUUID(),
  shopId: randomUUID(),
  merchantOrderId: 'm-1',
  sequence: 2,
  cost: { amount: '10.00', currency: 'USD' },
});
const refund = () => ({ refundId: randomUUID(), amount: '4.00' });

describe('the books skip a status change that plainly moves no money, before its schema', () => {
  const previous = [null, ...OrderStatuses];
  const cases = OrderStatuses.flatMap((status) =>
    previous.flatMap((previousStatus) =>
      [false, true].map((withRefund) => ({
        ...base(),
        status,
        previousStatus,
        ...(withRefund ? { refund: refund() } : {}),
      })),
    ),
  );

  it('never skips one that books (every status, previous status, with and without a refund)', () => {
    let skipped = 0;
    let booked = 0;
    for (const payload of cases) {
      const booking = toOrderBooking(event(payload));
      if (booking) booked++;
      if (plainlyMovesNoMoney(payload)) {
        skipped++;
        expect({ payload, booking }).toEqual({ payload, booking: null });
      }
    }
    // Of 8 statuses × 9 previous ones × refund or not: skipped, the 7 other statuses and a repeated
    // completion without a refund; booked, a first completion (8 previous) and every refund (72).
    expect({ cases: cases.length, skipped, booked }).toEqual({ cases: 144, skipped: 64, booked: 80 });
  });

  it('skips every status but a first completion when there is no refund', () => {
    const skip = (status: string, previousStatus: string | null) =>
      plainlyMovesNoMoney({ ...base(), status, previousStatus });
    expect(skip('in_progress', 'registered')).toBe(true);
    expect(skip('failed', 'in_progress')).toBe(true);
    expect(skip('completed', 'completed')).toBe(true);
    expect(skip('completed', 'in_progress')).toBe(false);
    expect(skip('completed', 'need_action')).toBe(false);
    expect(plainlyMovesNoMoney({ ...base(), status: 'refunded', previousStatus: 'completed', refund: refund() })).toBe(
      false,
    );
  });

  it('leaves what the schema would refuse to the schema, so it is named and dead-lettered', () => {
    for (const payload of [null, 'x', { ...base(), status: 'bogus', previousStatus: 'in_progress' }, {}]) {
      expect(plainlyMovesNoMoney(payload)).toBe(false);
    }
    expect(() => toOrderBooking(event({ ...base(), status: 'bogus', previousStatus: 'in_progress' }))).toThrow(
      /status/,
    );
  });
});
