import { maskDetails, maskNumber } from './mask';

describe('masking card and account numbers', () => {
  it.each([
    ['a card number keeps its BIN and last 4', '4111111111111111', '411111******1111'],
    ['a 19-digit card number too', '8600123456789012345', '860012*********2345'],
    ['an IBAN keeps its last 4', 'UZ12NBU0000020208000900123', '**********************0123'],
    ['an account number keeps its last 4', '20208000900123456789', '****************6789'],
    ['a short value is no number to hide', 'Jane Doe', 'Jane Doe'],
    ['a phone number of 8 digits stays', '90123456', '90123456'],
    ['an E.164 phone number stays: it is contact data', '+998901234567', '+998901234567'],
  ])('when %s', (_when, value, masked) => {
    expect(maskNumber(value)).toBe(masked);
  });

  it('when a payee has nested numbers, then every one is masked and nothing else changes', () => {
    expect(
      maskDetails({
        cardNumber: '4111111111111111',
        holder: 'Jane',
        bank: { accountNumber: '20208000900123456789' },
        n: 1,
      }),
    ).toEqual({
      cardNumber: '411111******1111',
      holder: 'Jane',
      bank: { accountNumber: '****************6789' },
      n: 1,
    });
  });
});
