import { checkCardNumber, checkExpiry, DEFAULT_PAGE_CARD_BRANDS } from './card-brands';

describe('card numbers typed on a hosted page: BIN ranges of the method, then Luhn', () => {
  it.each([
    ['9860 1234 5678 9012', 'humo', 'luhn'],
    ['9860123456789015', 'humo', 'ok'],
    ['8600 1234 5678 9012', 'uzcard', 'ok'],
    ['4111 1111 1111 1111', 'visa', 'ok'],
    ['5555555555554444', 'mastercard', 'ok'],
    ['2221000000000009', 'mastercard', 'ok'],
    ['2720990000000007', 'mastercard', 'ok'],
    ['2721000000000004', '-', 'brand'],
    ['5011111111111119', '-', 'brand'],
    ['378282246310005', '-', 'brand'],
    ['9860-1234-5678-9015', 'humo', 'ok'],
    ['98601234', '-', 'format'],
    ['9860abcd56789014', '-', 'format'],
  ])('when %s is typed, then it is %s / %s', (typed, brand, outcome) => {
    const r = checkCardNumber(typed, DEFAULT_PAGE_CARD_BRANDS);
    if (outcome === 'ok') expect(r).toEqual({ kind: 'ok', pan: typed.replace(/[\s-]/g, ''), brand });
    else expect(r).toEqual({ kind: 'invalid', reason: outcome });
  });

  it('when the method takes humo only, then a valid visa is refused for its BIN', () => {
    expect(checkCardNumber('4111111111111111', ['humo'])).toEqual({ kind: 'invalid', reason: 'brand' });
  });

  it.each([
    ['12/26', true],
    ['11/26', true],
    ['10/26', false],
    ['01/2030', true],
    ['13/27', false],
    ['1/27', false],
    ['12/99', false],
  ])('when the expiry %s is typed in November 2026, then it is valid: %s', (typed, valid) => {
    expect(checkExpiry(typed, { year: 2026, month: 11 })).toBe(valid);
  });
});
