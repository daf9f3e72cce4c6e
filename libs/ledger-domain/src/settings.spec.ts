import { feeScheduleErrors, rateErrors, settlementDelayErrors } from './settings';

describe('operators’ settings of the books (decision 303)', () => {
  const fee = { currency: 'USD', percent: '2.5', fixed: '0.30', minimum: '1.00' };

  it.each([
    ['a fee in USD', fee],
    ['a fee of 100 %', { ...fee, percent: '100' }],
    ['a fee in a token', { currency: 'USDT-TRC20', percent: '0', fixed: '1.000001', minimum: '0' }],
    [
      'a crypto fee at 18 places',
      { currency: 'ETH', percent: '0.000001', fixed: '0.000000000000000001', minimum: '0' },
    ],
    ['a minimum above most amounts (refused at booking, not here)', { ...fee, minimum: '100000' }],
  ])('when %s is set, then it is valid', (_name, input) => {
    expect(feeScheduleErrors(input)).toEqual([]);
  });

  it.each([
    ['an unknown currency', { ...fee, currency: 'XXX' }, 'currency'],
    ['a token without its standard', { ...fee, currency: 'USDT' }, 'currency'],
    ['a lower-case currency', { ...fee, currency: 'usd' }, 'currency'],
    ['a percent above 100', { ...fee, percent: '100.01' }, 'percent'],
    ['a negative fixed part', { ...fee, fixed: '-1' }, 'fixed'],
    ['a fixed part below the minor unit', { ...fee, fixed: '0.301' }, 'fixed'],
    ['a minimum that is no decimal', { ...fee, minimum: '1e3' }, 'minimum'],
  ])('when %s is set, then the error names %s', (_name, input, path) => {
    expect(feeScheduleErrors(input).map((e) => e.path)).toEqual([path]);
  });

  const rate = { base: 'USD', quote: 'USDT-TRC20', rate: '0.998', validFrom: '2026-11-27T00:00:00Z' };

  it('when a rate is open-ended or ends after it starts, then it is valid', () => {
    expect(rateErrors(rate)).toEqual([]);
    expect(rateErrors({ ...rate, validTo: '2026-11-28T00:00:00Z' })).toEqual([]);
  });

  it.each([
    ['a zero rate', { ...rate, rate: '0' }, 'rate'],
    ['a negative rate', { ...rate, rate: '-1' }, 'rate'],
    ['an unknown base', { ...rate, base: 'ABC' }, 'base'],
    ['a pair of one currency', { ...rate, quote: 'USD' }, 'quote'],
    ['an end before the start', { ...rate, validTo: '2026-11-26T00:00:00Z' }, 'validTo'],
    ['an end at the start', { ...rate, validTo: rate.validFrom }, 'validTo'],
    ['a start that is no time', { ...rate, validFrom: 'tomorrow' }, 'validFrom'],
  ])('when %s is set, then the error names %s', (_name, input, path) => {
    expect(rateErrors(input).map((e) => e.path)).toEqual([path]);
  });

  it.each([[0], [86_400]])('when the settlement delay is %s, then it is valid', (s) => {
    expect(settlementDelayErrors(s)).toEqual([]);
  });

  it.each([[-1], [1.5], ['0'], [31_536_001]])('when the settlement delay is %p, then it is refused', (s) => {
    expect(settlementDelayErrors(s).map((e) => e.path)).toEqual(['settlementDelaySeconds']);
  });
});
