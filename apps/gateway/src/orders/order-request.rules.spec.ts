import 'reflect-metadata';
import { CreateOrderDto } from './create-order.dto';
import { linkExpiry } from './order-request.rules';

describe('hosted order inputs: an instant names its zone', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const withInstant = (timeLimit: string) => ({ paymentSettings: { timeLimit } }) as CreateOrderDto;

  it.each(['2026-11-24T13:00:00Z', '2026-11-24T18:00:00+05:00', '2026-11-24T18:00:00.000+0500'])(
    'when timeLimit is %s, then the link expires at that instant',
    (instant) => expect(linkExpiry(withInstant(instant), now)).toEqual({ expiresAt: '2026-11-24T13:00:00.000Z' }),
  );

  it.each(['2026-11-24T13:00:00', '2026-11-24T13:00'])(
    'when timeLimit %s has no Z or offset, then it is refused naming the field (not read in server time)',
    (instant) =>
      expect(linkExpiry(withInstant(instant), now)).toEqual({
        error: { path: 'paymentSettings.timeLimit', message: expect.stringContaining('offset') },
      }),
  );
});
