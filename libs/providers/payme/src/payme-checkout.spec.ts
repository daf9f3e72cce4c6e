import { paymeCheckoutLink } from './payme-checkout';

const M = '5e730e8e0b852a417aa49ceb';
const ORDER = '0a8c0f4e-6b1d-4f7e-9a3c-2d5e8b1c7f90';

describe("Payme's checkout link", () => {
  // Expected values computed apart from the code: `echo -n '<params>' | base64 -w0`.
  it('when the order has no return URL, then the link is base64 of m, ac.order_id and a in tiyin', () => {
    expect(paymeCheckoutLink({ merchantId: M, orderId: ORDER, amount: '125000.50' })).toBe(
      'https://checkout.paycom.uz/bT01ZTczMGU4ZTBiODUyYTQxN2FhNDljZWI7YWMub3JkZXJfaWQ9MGE4YzBmNGUtNmIxZC00ZjdlLTlhM2MtMmQ1ZThiMWM3ZjkwO2E9MTI1MDAwNTA=',
    );
  });

  it('when there is a return URL with a ";", then it is c, the ";" percent-encoded, on the given base', () => {
    const link = paymeCheckoutLink({
      merchantId: M,
      orderId: ORDER,
      amount: '125000.00',
      returnUrl: 'https://shop.example/ok?a=1;b',
      base: 'http://127.0.0.1:9/',
    });
    expect(link).toBe(
      'http://127.0.0.1:9/bT01ZTczMGU4ZTBiODUyYTQxN2FhNDljZWI7YWMub3JkZXJfaWQ9MGE4YzBmNGUtNmIxZC00ZjdlLTlhM2MtMmQ1ZThiMWM3ZjkwO2E9MTI1MDAwMDA7Yz1odHRwczovL3Nob3AuZXhhbXBsZS9vaz9hPTElM0Ji',
    );
  });
});
