import { amountOf } from '@payments/money';
import { accountKey } from './accounts';
import { adjustmentErrors, checkAdjustment, planAdjustment } from './adjustments';

describe("operators' manual adjustments (decision 308)", () => {
  const ok = { currency: 'USD', amount: '25.00', reason: 'Goodwill credit, ticket 4411' };

  it.each([
    ['a credit', ok],
    ['a debit', { ...ok, amount: '-10.5' }],
    ['a credit with a plus sign', { ...ok, amount: '+3' }],
    ['a token at its scale', { currency: 'USDT-TRC20', amount: '-0.000001', reason: 'Dust' }],
  ])('when %s is asked, then it is valid', (_name, input) => {
    expect(adjustmentErrors(input)).toEqual([]);
  });

  it.each([
    ['an unknown currency', { ...ok, currency: 'XYZ' }, ['currency']],
    ['a token without its standard', { ...ok, currency: 'USDT' }, ['currency']],
    ['a zero amount', { ...ok, amount: '0.00' }, ['amount']],
    ['a negative zero', { ...ok, amount: '-0' }, ['amount']],
    ['an exponent', { ...ok, amount: '1e3' }, ['amount']],
    ['a number where a string belongs', { ...ok, amount: 25 as unknown as string }, ['amount']],
    ['cents below the minor unit', { ...ok, amount: '10.001' }, ['amount']],
    ['more digits than the books keep', { ...ok, amount: '123456789012345678901' }, ['amount']],
    ['a blank reason', { ...ok, reason: '   ' }, ['reason']],
    ['no reason', { ...ok, reason: undefined as unknown as string }, ['reason']],
    ['everything wrong', { currency: 'usd', amount: 'ten', reason: '' }, ['currency', 'amount', 'reason']],
  ])('when %s is asked, then the errors name %s', (_name, input, paths) => {
    expect(adjustmentErrors(input).map((e) => e.path)).toEqual(paths);
  });

  const shop = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';
  const checked = (amount: string) => checkAdjustment({ ...ok, amount }).checked!;

  it('when a credit is planned, then available rises against the adjustments account and the postings sum to zero', () => {
    const plan = planAdjustment(shop, checked('25.00'), amountOf('0'));
    expect(plan.kind).toBe('posted');
    if (plan.kind !== 'posted') return;
    expect(plan.postings.map((p) => [accountKey(p.account), p.amount.toFixed()])).toEqual([
      [`shop:${shop}:available:USD`, '25'],
      ['adjustments:USD', '-25'],
    ]);
    expect(plan.availableAfter.toFixed()).toBe('25');
  });

  it('when a debit takes available to exactly zero, then it posts; a cent more is refused with the balance', () => {
    const exact = planAdjustment(shop, checked('-10.50'), amountOf('10.5'));
    expect(exact.kind === 'posted' && exact.availableAfter.toFixed()).toBe('0');
    expect(planAdjustment(shop, checked('-10.51'), amountOf('10.5'))).toEqual({
      kind: 'insufficient',
      available: amountOf('10.5'),
    });
  });
});
