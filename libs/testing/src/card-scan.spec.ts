import { cardNumbersIn } from '@payments/methods-domain';
import { findCardNumbers } from './card-scan';

describe('findCardNumbers', () => {
  it.each([
    ['a stored payee', '{"cardNumber": "8600123456789012", "holder": "JANE"}', ['8600123456789012']],
    ['a Visa test card in a Kafka value', 'x4111111111111111y', ['4111111111111111']],
    ['a 19-digit card', 'pan=6011000990139424009', ['6011000990139424009']],
    ['a 13-digit Visa', '4222222222222', ['4222222222222']],
    ['two cards', '5555555555554444,378282246310005', ['5555555555554444', '378282246310005']],
    ['a card with digits stuck to it', 'ORD04111111111111111', ['4111111111111111']],
    ['a card in groups separated by dots', '"4111.1111.1111.1111"', ['4111111111111111']],
    ['a card after a decimal number', '{"amount": "90.18", "pan": "4111 1111 1111 1111"}', ['4111111111111111']],
  ])('when the text holds %s, then the Luhn-valid runs of 13 to 19 digits are found', (_what, text, expected) => {
    expect(findCardNumbers(text)).toEqual(expected);
  });

  it.each([
    ['a masked card', '860012******9012'],
    ['a check digit off by one', '8600123456789013'],
    ['12 digits', '860012345674'],
    ['an epoch time in ms', 'PayeeCards1764200000008 at 1764200000016'],
    ['the decimals of a stored amount', '{"amount": "90.180000000000000000"}'],
    ['a token', 'card_6f1c2b9e-3d4a-4e5f-9a8b-7c6d5e4f3a2b'],
  ])('when the text holds %s, then nothing is found', (_what, text) => {
    expect(findCardNumbers(text)).toEqual([]);
  });
});

describe('what only the scan of stored content excludes, on top of looking inside longer numbers', () => {
  it.each([
    ['the decimals of a numeric(38, 18) amount', '{"amount": "90.411111111111111100"}'],
    ['an epoch time in ns', 'at 1411111111111111100'],
  ])(
    'when the text holds %s with a card-shaped window, then a search inside numbers finds it but the scan does not',
    (_w, text) => {
      expect(cardNumbersIn(text, { insideLongerNumbers: true })).not.toEqual([]);
      expect(findCardNumbers(text)).toEqual([]);
    },
  );
});
