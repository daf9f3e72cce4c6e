import { cardNumbersIn, containsCardNumber } from './card-in-text';
import { cardSchemeOf, isPanShaped } from './card-schemes';
import { DOCUMENTED_TEST_CARDS } from '@payments/testing';

describe('a card number typed into free text or an id (decision 258)', () => {
  it.each([
    ['4111111111111111', true],
    ['card 4111 1111 1111 1111 please', true],
    ['4111-1111-1111-1111', true],
    ['refund to 8600 1234 5678 9012', true], // Uzcard, 16 digits
    ['refund to 8600 1234 5678 9013', false], // Uzcard's IIN, a wrong check digit
    ['9860123456789015 HUMO', true],
    ['amex 3782 822463 10005', true], // 15 digits in 4-6-5 groups
    ['qty 2 4111 1111 1111 1111', true], // the card is a run of groups inside a longer one
    ['4222222222222', true], // Visa, 13 digits
    ['4222 2222 2222 2', true], // and typed in fours
    ['6011111111111117', true],
    ['ORD4111111111111111', true], // letters stuck to it do not hide it
    ['ORD04111111111111111', true], // nor leading zeros
    ['04111 1111 1111 1111', true],
    ['4111.1111.1111.1111', true],
    ['4111_1111_1111_1111', true],
    ['4111/1111/1111/1111', true],
    ['card:4111-1111-1111-1111.', true],
    ['3056 930902 5904', true], // Diners, 4-6-4
    ['6011 0009 9013 9424 009', true], // Discover, 19 digits, 4-4-4-4-3
    ['5868 2416 0825 5333 38', true], // Maestro, 18 digits, 4-4-4-4-2
    ['4111111111111112', false], // wrong check digit
    ['shop-order-1001', false],
    ['m-1764011234567-1', false], // a millisecond timestamp: 13 digits starting with 1
    ['0000000000000000', false],
    ['+998901234567', false], // a phone number: 12 digits
    ['411111111111', false], // 12 digits
    ['4111 1111 1111 1112', false],
    ['', false],
  ])('when the text is "%s", then a card number is found: %s', (text, found) => {
    expect(containsCardNumber(text)).toBe(found);
  });
});

describe('numbers that are not a card number as a whole (decision 258: ids are not refused)', () => {
  it.each([
    ['2026112709512345678', 'a yyyyMMddHHmmss id and a 5-digit sequence, with Luhn-valid windows'],
    ['order 2026112709512345678 shipped', 'the same id in a description'],
    ['1864523398765432109', 'a 19-digit snowflake starting with 1: no scheme starts with 1'],
    ['2126298864649502719', "a snowflake on Twitter's epoch, 2026: 2126 is no scheme's IIN"],
    ['1795784129401000000', 'a nanosecond timestamp'],
    ['41111111111111111111111', 'a card glued into a 23-digit number: too long to be a card'],
    ['ref 41111111111111119999 ok', 'digits stuck after a card: a 20-digit number'],
    ['4111111111111111123', 'a Visa-prefixed 19-digit number with a wrong check digit'],
    ['65000000000000000006', '20 digits'],
    ['648027566904442885', 'an 18-digit Sonyflake starting 648: Discover issues 16 and 19 digits'],
  ])('when the text is "%s" (%s), then no card number is found', (text) => {
    expect(containsCardNumber(text)).toBe(false);
  });

  it.each([
    ['2611271255360004', 'a yyMMddHHmmss id and 4 digits: 2611 is a Mastercard IIN (2221–2720), 16 digits'],
    ['675925846917120005', 'an 18-digit Sonyflake of June 2027 starting 6759, a Maestro IIN'],
  ])('when the text is "%s" (%s), then it is refused one time in ten, as decision 258 says', (text) => {
    expect(containsCardNumber(text)).toBe(true);
  });
});

describe('numbers next to each other in free text that are not a card (false refusals)', () => {
  it.each([
    ['delivered 2026-11-24 10009 UZS'], // a date and an amount: "2026112410009" is Luhn-valid
    ['IBAN DE62 3704 0044 0532 0130 01'], // a valid IBAN whose digits happen to pass Luhn
    ['DE62370400440532013001'],
    ['qty 3 price 1200 00 total 3600 00 on 24 11 2026'],
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

describe('looking inside longer numbers (the scans and dead-letter masking, not the rule that refuses)', () => {
  it.each([
    ['ref 41111111111111119999 ok', '4111111111111111'],
    ['41111111111111111111111', '4111111111111111'],
    ['x 2026112709512345678', undefined],
  ])('when the text is "%s", then the card inside is found: %s', (text, card) => {
    const found = cardNumbersIn(text, { insideLongerNumbers: true }).map((f) => f.number);
    if (card) expect(found).toContain(card);
    expect(cardNumbersIn(text)).toEqual([]);
  });
});

describe('the schemes', () => {
  it.each(DOCUMENTED_TEST_CARDS.map((c) => [c.number, c.scheme, c.source]))(
    'when the documented test card %s (%s, %s) is judged, then it is PAN-shaped and of its scheme',
    (number, scheme) => {
      expect(isPanShaped(number)).toBe(true);
      expect(cardSchemeOf(number)?.name).toBe(scheme);
    },
  );

  it.each([
    ['135412345678911', 'UATP (1…, 15 digits) is left out'],
    ['2200000000000000053', 'Mir issues 16 digits, not 19'],
    ['620000000000000003', 'UnionPay issues 16 and 19 digits, not 18'],
    ['27210000000000000', 'Mastercard ends at 2720'],
  ])('when %s is judged, then it is of no scheme: %s', (number) => {
    expect(cardSchemeOf(number)).toBeUndefined();
  });
});
