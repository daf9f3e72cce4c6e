import { assertNever } from './index';

describe('assertNever', () => {
  it('when a value outside the union reaches it at run time, then it throws naming the value', () => {
    expect(() => assertNever({ kind: 'surprise' } as never)).toThrow('unexpected value: {"kind":"surprise"}');
  });
});
