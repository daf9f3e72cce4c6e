import { containsCardNumber } from './card-in-text';

describe('a card number typed into free text', () => {
  it.each([
    ['4111111111111111', true],
    ['card 4111 1111 1111 1111 please', true],
    ['4111-1111-1111-1111', true],
    ['refund to 8600 1234 5678 9012', true], // Uzcard, 16 digits
    ['9860123456789015 HUMO', true],
    ['amex 3782 822463 10005', true], // 15 digits in 4-6-5 groups
    ['qty 2 4111 1111 1111 1111', true], // the card is a run of groups inside a longer one
    ['4222222222222', true], // 13 digits
    ['6011111111111117', true],
    ['4111111111111112', false], // wrong check digit
    ['shop-order-1001', false],
    ['m-1764011234567-1', false], // a millisecond timestamp: 13 digits, not a card's first digit
    ['0000000000000000', false],
    ['+998901234567', false], // a phone number: 12 digits
    ['411111111111', false], // 12 digits
    ['41111111111111111111111', true], // a card glued into a longer number is still a card
    ['4111 1111 1111 1112', false],
    ['', false],
  ])('when the text is "%s", then a card number is found: %s', (text, found) => {
    expect(containsCardNumber(text)).toBe(found);
  });
});

describe('a card number hidden in free text (bypasses of whole-group matching)', () => {
  it.each([
    ['ORD04111111111111111'], // a digit stuck to the number
    ['04111111111111111'], // a leading zero
    ['ref 41111111111111119999 ok'], // digits stuck after it
    ['4111.1111.1111.1111'],
    ['4111_1111_1111_1111'],
    ['4111/1111/1111/1111'],
    ['card:4111-1111-1111-1111.'],
    ['3056 930902 5904'], // Diners, 4-6-4
    ['6011 0009 9013 9424 009'], // 19 digits, 4-4-4-4-3
    ['04111 1111 1111 1111'], // a digit stuck to the first group
  ])('when the text is "%s", then a card number is found', (text) => {
    expect(containsCardNumber(text)).toBe(true);
  });
});

describe('numbers next to each other in free text that are not a card (false refusals)', () => {
  it.each([
    ['delivered 2026-11-24 10009 UZS'], // a date and an amount: "2026112410009" is Luhn-valid
    ['IBAN DE62 3704 0044 0532 0130 01'], // a valid IBAN whose digits happen to pass Luhn
    ['DE62370400440532013001'],
    ['qty 3 price 1200 00 total 3600 00 on 24 11 2026'],
    ['m-1764011234567-1'], // a millisecond timestamp starts with 1
    ['1 4111 1111 1111 111'], // 1-4-4-4-3: not a card layout, and no group is long enough
    // a vault token: the uuid's digit groups 4343-6749-8185-781234567 start "4343674981857", Luhn-valid
    ['card_3f2a9c1e-4343-6749-8185-781234567abc'],
    ['3f2a9c1e-4343-6749-8185-7812abcdef01'], // four 4-digit groups, the last stuck to hex letters
    // a callback's X-Signature: the HMAC's hex holds 18 digits in a row with a Luhn-valid window
    ['t=1795552800,v1=9f0e4c233635840373893170ab7d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0e1f2'],
  ])('when the text is "%s", then no card number is found', (text) => {
    expect(containsCardNumber(text)).toBe(false);
  });
});
