import { clickSignatureValid, clickSignString } from './sign-string';

// The expected values are `echo -n '<concatenation>' | md5sum`, computed apart from this code.
const prepare = {
  click_trans_id: '2222',
  service_id: '123',
  merchant_trans_id: 'order-1',
  amount: '1000.00',
  action: '0',
  sign_time: '2026-11-27 10:00:00',
};
const complete = { ...prepare, merchant_prepare_id: '77', action: '1', sign_time: '2026-11-27 10:00:05' };

describe('Click sign_string (Click-API – Request)', () => {
  it('when a Prepare is signed, then it is md5(click_trans_id service_id SECRET_KEY merchant_trans_id amount action sign_time)', () => {
    expect(clickSignString(prepare, 'secret-key')).toBe('17e7e7414cfaed43d9ef4063f9f09bea');
  });

  it('when a Complete is signed, then merchant_prepare_id follows merchant_trans_id', () => {
    expect(clickSignString(complete, 'secret-key')).toBe('855068176cf79077a9fa3aadff057227');
  });

  it.each([
    ['the documented signature', '17e7e7414cfaed43d9ef4063f9f09bea', true],
    ['the same in upper case', '17E7E7414CFAED43D9EF4063F9F09BEA', true],
    ['one digit changed', '17e7e7414cfaed43d9ef4063f9f09beb', false],
    ['a shorter string', '17e7e7414cfaed43', false],
  ])('when the request carries %s, then it is valid: %s', (_c, sign_string, valid) => {
    expect(clickSignatureValid({ ...prepare, sign_string }, 'secret-key')).toBe(valid);
  });

  it.each([
    ['amount written otherwise', { amount: '1000' }],
    ['another order', { merchant_trans_id: 'order-2' }],
    ['another time', { sign_time: '2026-11-27 10:00:01' }],
    ['another action', { action: '1' }],
  ])('when the %s than signed, then the signature fails', (_c, change) => {
    expect(
      clickSignatureValid({ ...prepare, ...change, sign_string: '17e7e7414cfaed43d9ef4063f9f09bea' }, 'secret-key'),
    ).toBe(false);
  });

  it('when signed with another secret key, then it fails', () => {
    expect(clickSignatureValid({ ...prepare, sign_string: clickSignString(prepare, 'other-key') }, 'secret-key')).toBe(
      false,
    );
  });
});
