import { atScale, releaseErrors } from './release';

describe('a parked credit’s release: the reason', () => {
  it.each([
    [{}, 'reason'],
    [{ reason: '   ' }, 'reason'],
    [{ reason: 7 }, 'reason'],
    [{ reason: 'x'.repeat(501) }, 'reason'],
  ])('when the body is %j, then it is refused naming %s', (input, path) => {
    expect(releaseErrors(input).map((e) => e.path)).toEqual([path]);
  });

  it('when a reason is given, then nothing is refused', () => {
    expect(releaseErrors({ reason: 'Added BRL to the registry, ticket 5120' })).toEqual([]);
  });
});

describe('an amount at its currency’s scale', () => {
  it.each([
    ['105.2', 'USD', '105.20'],
    ['0', 'USD', '0.00'],
    ['-10.5', 'USD', '-10.50'],
    ['36.0256', 'USDT-TRC20', '36.025600'],
    ['1', 'BTC', '1.00000000'],
    ['1500', 'JPY', '1500'],
    ['97.97366', 'USDT-TRC20', '97.973660'],
  ])('when %s %s is shown, then it reads %s', (amount, currency, shown) => {
    expect(atScale(amount, currency)).toBe(shown);
  });

  it.each([
    ['1.005', 'USD'],
    ['12.5', 'XYZ'],
    ['12.5', 'USDT'],
    ['not a number', 'USD'],
  ])('when %s %s cannot be padded honestly, then it is shown as it is', (amount, currency) => {
    expect(atScale(amount, currency)).toBe(amount);
  });
});
