import { refund } from './refund';

const paid = { status: 'completed' as const, amount: '100.00', currency: 'USD', tokenStandard: null };

describe('refund: partial or full, never more than was paid', () => {
  it.each([
    [
      'a part of a paid order',
      paid,
      '0',
      '40.00',
      { kind: 'transition', status: 'partially_refunded', statusCode: '0-07-02', refundedTotal: '40' },
    ],
    [
      'the rest after a partial refund',
      { ...paid, status: 'partially_refunded' as const },
      '40',
      '60',
      { kind: 'transition', status: 'refunded', statusCode: '0-07-03', refundedTotal: '100' },
    ],
    [
      'all of it at once',
      paid,
      '0',
      '100',
      { kind: 'transition', status: 'refunded', statusCode: '0-07-03', refundedTotal: '100' },
    ],
    [
      'the accepted amount, not the original one',
      { ...paid, amount: '98.50' },
      '0',
      '98.5',
      { kind: 'transition', status: 'refunded', statusCode: '0-07-03', refundedTotal: '98.5' },
    ],
  ])(
    'when refunding %s, then it is accepted with the right status and total',
    (_what, order, before, amount, expected) => {
      expect(refund(order, before, { amount, currency: 'USD' })).toEqual(expected);
    },
  );

  it.each([
    ['more than was paid', paid, '0', '100.01', 'USD', 'cost.amount'],
    ['more than is left', { ...paid, status: 'partially_refunded' as const }, '60', '40.01', 'USD', 'cost.amount'],
    ['another currency', paid, '0', '10', 'EUR', 'cost.currency'],
  ])('when refunding %s, then it is refused naming the field', (_what, order, before, amount, currency, field) => {
    expect(refund(order, before, { amount, currency })).toMatchObject({ kind: 'rejected', field });
  });

  it.each(['registered', 'in_progress', 'need_action', 'refunded', 'cancelled', 'failed'] as const)(
    'when the order is %s, then nothing can be refunded',
    (status) => {
      expect(refund({ ...paid, status }, '0', { amount: '1', currency: 'USD' })).toMatchObject({ kind: 'rejected' });
    },
  );
});
