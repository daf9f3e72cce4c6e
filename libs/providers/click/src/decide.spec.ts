import { ClickOrderState, ClickTransaction, decideComplete, decidePrepare, orderPayability } from './decide';

const SHOP = 'a0000000-0000-4000-8000-000000000001';
const ORDER = 'b0000000-0000-4000-8000-000000000002';
const anOrder = (over: Partial<Extract<ClickOrderState, { kind: 'found' }>> = {}): ClickOrderState => ({
  kind: 'found',
  shopId: SHOP,
  amount: '150000.00',
  currency: 'UZS',
  status: 'registered',
  ...over,
});
const aTransaction = (over: Partial<ClickTransaction> = {}): ClickTransaction => ({
  clickTransId: '5001',
  orderId: ORDER,
  amount: '150000',
  merchantPrepareId: '12',
  state: 'prepared',
  merchantConfirmId: null,
  ...over,
});

describe('whether an order can take a Click payment', () => {
  it.each([
    ['a registered order of the shop, the same amount', anOrder(), '150000', { kind: 'payable' }],
    ['the amount written with decimals', anOrder(), '150000.00', { kind: 'payable' }],
    ['no such order', { kind: 'not_found' } as const, '150000', { kind: 'refused', error: 'userNotFound' }],
    ['an order of another shop', anOrder({ shopId: ORDER }), '150000', { kind: 'refused', error: 'userNotFound' }],
    ['a completed order', anOrder({ status: 'completed' }), '150000', { kind: 'refused', error: 'alreadyPaid' }],
    ['a refunded order', anOrder({ status: 'refunded' }), '150000', { kind: 'refused', error: 'alreadyPaid' }],
    [
      'a cancelled order',
      anOrder({ status: 'cancelled' }),
      '150000',
      { kind: 'refused', error: 'transactionCancelled' },
    ],
    ['a failed order', anOrder({ status: 'failed' }), '150000', { kind: 'refused', error: 'transactionCancelled' }],
    ['another amount', anOrder(), '150001', { kind: 'refused', error: 'incorrectAmount' }],
    ['an order in USD', anOrder({ currency: 'USD' }), '150000', { kind: 'refused', error: 'incorrectAmount' }],
    [
      'an order being paid by card',
      anOrder({ status: 'in_progress' }),
      '150000',
      { kind: 'refused', error: 'failedToUpdate' },
    ],
    [
      'an order in need_action',
      anOrder({ status: 'need_action' }),
      '150000',
      { kind: 'refused', error: 'failedToUpdate' },
    ],
  ])('when %s, then %j', (_c, order, amount, expected) => {
    expect(orderPayability(order, SHOP, amount)).toEqual(expected);
  });
});

describe('a Prepare', () => {
  const req = { merchant_trans_id: ORDER, amount: '150000' };
  it('when the transaction is new and the order payable, then it is prepared', () => {
    expect(decidePrepare(null, anOrder(), SHOP, req)).toEqual({ kind: 'prepare' });
  });
  it('when the same click_trans_id comes again, then the first answer is repeated whatever the order is now', () => {
    const t = aTransaction({ state: 'completed' });
    expect(decidePrepare(t, anOrder({ status: 'completed' }), SHOP, req)).toEqual({ kind: 'repeat', transaction: t });
  });
  it('when the same click_trans_id comes for another order, then it is an error in the request (-8)', () => {
    expect(decidePrepare(aTransaction({ orderId: SHOP }), anOrder(), SHOP, req)).toEqual({
      kind: 'refuse',
      error: 'badRequest',
    });
  });
  it('when the order cannot take it, then the reason is the answer', () => {
    expect(decidePrepare(null, anOrder({ status: 'cancelled' }), SHOP, req)).toEqual({
      kind: 'refuse',
      error: 'transactionCancelled',
    });
  });
});

describe('a Complete', () => {
  const req = (over: Partial<{ merchant_prepare_id: string; amount: string; error: string }> = {}) => ({
    merchant_trans_id: ORDER,
    merchant_prepare_id: '12',
    amount: '150000',
    error: '0',
    ...over,
  });
  it.each([
    ['no transaction', null, req(), undefined, { kind: 'refuse', error: 'transactionNotFound' }],
    [
      'another merchant_prepare_id',
      aTransaction(),
      req({ merchant_prepare_id: '13' }),
      undefined,
      { kind: 'refuse', error: 'transactionNotFound' },
    ],
    [
      'another amount than prepared',
      aTransaction(),
      req({ amount: '1' }),
      undefined,
      { kind: 'refuse', error: 'incorrectAmount' },
    ],
    [
      'a cancelled transaction',
      aTransaction({ state: 'cancelled' }),
      req(),
      undefined,
      { kind: 'refuse', error: 'transactionCancelled' },
    ],
    [
      'Click reports a failure',
      aTransaction(),
      req({ error: '-5017' }),
      undefined,
      { kind: 'cancel', error: 'transactionCancelled' },
    ],
    [
      'Click reports a failure of a completed one',
      aTransaction({ state: 'completed' }),
      req({ error: '-5017' }),
      undefined,
      { kind: 'refuse', error: 'alreadyPaid' },
    ],
    ['a prepared one, order not yet asked', aTransaction(), req(), undefined, { kind: 'needs_order' }],
    ['a prepared one, order payable', aTransaction(), req(), anOrder(), { kind: 'complete' }],
    [
      'a prepared one, order cancelled meanwhile',
      aTransaction(),
      req(),
      anOrder({ status: 'cancelled' }),
      { kind: 'cancel', error: 'transactionCancelled' },
    ],
    [
      'a prepared one, order paid otherwise meanwhile',
      aTransaction(),
      req(),
      anOrder({ status: 'completed' }),
      { kind: 'refuse', error: 'alreadyPaid' },
    ],
  ])('when %s, then %j', (_c, known, request, order, expected) => {
    expect(decideComplete(known, request, order, SHOP)).toEqual(expected);
  });
  it('when it repeats a completed one, then the first answer is repeated', () => {
    const t = aTransaction({ state: 'completed', merchantConfirmId: '12' });
    expect(decideComplete(t, req(), undefined, SHOP)).toEqual({ kind: 'repeat', transaction: t });
  });
});
