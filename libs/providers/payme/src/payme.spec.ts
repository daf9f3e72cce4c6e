import { paymeAuthorization, paymeAuthorized } from './payme-auth';
import { parsePaymeRequest } from './payme-request';
import {
  cancelTransaction,
  checkPerform,
  createTransaction,
  PAYME_TIMEOUT_MS,
  paymeResult,
  PaymeOrderState,
  PaymeTransaction,
  performTransaction,
} from './payme-transactions';
import { fromTiyin, toTiyin } from './tiyin';

const ORDER = 'b0000000-0000-4000-8000-000000000002';
const NOW = 1_800_000_000_000;
const anOrder = (over: Partial<Extract<PaymeOrderState, { kind: 'found' }>> = {}): PaymeOrderState => ({
  kind: 'found',
  amount: '150000.00',
  currency: 'UZS',
  status: 'registered',
  ...over,
});
const aTransaction = (over: Partial<PaymeTransaction> = {}): PaymeTransaction => ({
  id: 'pm-1',
  orderId: ORDER,
  amount: 15_000_000,
  state: 1,
  paymeTime: NOW - 1000,
  createTime: NOW - 1000,
  performTime: 0,
  cancelTime: 0,
  reason: null,
  ...over,
});
const create = { id: 'pm-1', time: NOW, amount: 15_000_000, account: { order_id: ORDER } };

describe('Payme: authorization, JSON-RPC and tiyin', () => {
  it.each([
    ['the merchant key as Paycom', paymeAuthorization('k-123456'), true],
    ['another key', paymeAuthorization('k-000000'), false],
    ['another login', `Basic ${Buffer.from('Other:k-123456').toString('base64')}`, false],
    ['a bearer token', 'Bearer k-123456', false],
    ['no header', undefined, false],
  ])('when Authorization is %s, then authorized: %s (else -32504)', (_c, header, ok) => {
    expect(paymeAuthorized(header, 'k-123456')).toBe(ok);
  });

  it.each([
    ['not JSON', '{', 'parse'],
    ['an array', '[]', 'invalidRequest'],
    ['no method', '{"id":1,"params":{}}', 'invalidRequest'],
    ['an unknown method', '{"id":1,"method":"Pay","params":{}}', 'methodNotFound'],
    [
      'an amount in sums with decimals',
      '{"id":1,"method":"CheckPerformTransaction","params":{"amount":1.5,"account":{"order_id":"x"}}}',
      'invalidRequest',
    ],
    ['no account', '{"id":1,"method":"CreateTransaction","params":{"id":"a","time":1,"amount":100}}', 'invalidRequest'],
  ])('when the body is %s, then %s', (_c, raw, error) => {
    expect(parsePaymeRequest(raw)).toMatchObject({ kind: 'error', error });
  });

  it('when the body is a valid call, then its method and params are kept with the request id', () => {
    expect(parsePaymeRequest(JSON.stringify({ id: 7, method: 'PerformTransaction', params: { id: 'pm-1' } }))).toEqual({
      kind: 'ok',
      id: 7,
      call: { method: 'PerformTransaction', params: { id: 'pm-1' } },
    });
  });

  it.each([
    ['150000.00', 15_000_000],
    ['0.01', 1],
    ['1234.5', 123_450],
  ])('when %s sums are sent, then they are %i tiyin and back', (sums, tiyin) => {
    expect(toTiyin(sums)).toBe(tiyin);
    expect(Number(fromTiyin(tiyin))).toBe(Number(sums));
  });
});

describe('Payme: the transaction rules', () => {
  it.each([
    ['a payable order, its amount', anOrder(), 15_000_000, { kind: 'allow' }],
    ['no order', { kind: 'not_found' } as const, 15_000_000, { kind: 'error', error: 'orderNotFound' }],
    ['a paid order', anOrder({ status: 'completed' }), 15_000_000, { kind: 'error', error: 'orderNotPayable' }],
    ['a cancelled order', anOrder({ status: 'cancelled' }), 15_000_000, { kind: 'error', error: 'orderNotPayable' }],
    ['another amount', anOrder(), 15_000_001, { kind: 'error', error: 'wrongAmount' }],
    ['an order in USD', anOrder({ currency: 'USD' }), 15_000_000, { kind: 'error', error: 'wrongAmount' }],
  ])('CheckPerformTransaction, when %s, then %j', (_c, order, amount, expected) => {
    expect(checkPerform(order, amount)).toEqual(expected);
  });

  it('CreateTransaction, when new and the order payable, then a transaction in state 1', () => {
    const d = createTransaction(null, null, anOrder(), create, NOW);
    expect(d).toMatchObject({
      kind: 'create',
      transaction: { id: 'pm-1', state: 1, createTime: NOW, amount: 15_000_000 },
    });
  });

  it('CreateTransaction, when another transaction of the order is open, then -31051', () => {
    expect(createTransaction(null, aTransaction({ id: 'pm-0' }), anOrder(), create, NOW)).toEqual({
      kind: 'error',
      error: 'orderBusy',
    });
  });

  it('CreateTransaction, when the same id comes again, then the first answer', () => {
    const t = aTransaction();
    expect(createTransaction(t, t, anOrder(), create, NOW)).toEqual({ kind: 'answer', transaction: t });
  });

  it('CreateTransaction, when the same id comes after 12 hours, then it is cancelled with reason 4 and -31008', () => {
    const t = aTransaction({ createTime: NOW - PAYME_TIMEOUT_MS - 1 });
    expect(createTransaction(t, t, anOrder(), create, NOW)).toEqual({
      kind: 'expire',
      transaction: { ...t, state: -1, cancelTime: NOW, reason: 4 },
    });
  });

  it.each([
    ['no transaction', null, { kind: 'error', error: 'transactionNotFound' }],
    ['a created one', aTransaction(), { kind: 'write', transaction: aTransaction({ state: 2, performTime: NOW }) }],
    [
      'a performed one',
      aTransaction({ state: 2, performTime: 5 }),
      { kind: 'answer', transaction: aTransaction({ state: 2, performTime: 5 }) },
    ],
    ['a cancelled one', aTransaction({ state: -1 }), { kind: 'error', error: 'cannotPerform' }],
    [
      'one past 12 hours',
      aTransaction({ createTime: NOW - PAYME_TIMEOUT_MS - 1 }),
      {
        kind: 'expire',
        transaction: aTransaction({ createTime: NOW - PAYME_TIMEOUT_MS - 1, state: -1, cancelTime: NOW, reason: 4 }),
      },
    ],
  ])('PerformTransaction, when %s, then %j', (_c, t, expected) => {
    expect(performTransaction(t, NOW)).toEqual(expected);
  });

  it.each([
    ['no transaction', null, true, { kind: 'error', error: 'transactionNotFound' }],
    [
      'a created one',
      aTransaction(),
      true,
      { kind: 'write', transaction: aTransaction({ state: -1, cancelTime: NOW, reason: 3 }) },
    ],
    [
      'a performed one, refundable',
      aTransaction({ state: 2 }),
      true,
      { kind: 'write', transaction: aTransaction({ state: -2, cancelTime: NOW, reason: 3 }) },
    ],
    ['a performed one, not refundable', aTransaction({ state: 2 }), false, { kind: 'error', error: 'cannotCancel' }],
    [
      'a cancelled one',
      aTransaction({ state: -2, reason: 5 }),
      true,
      { kind: 'answer', transaction: aTransaction({ state: -2, reason: 5 }) },
    ],
  ])('CancelTransaction, when %s, then %j', (_c, t, refundable, expected) => {
    expect(cancelTransaction(t, 3, NOW, refundable)).toEqual(expected);
  });

  it('CheckTransaction and GetStatement answer every time and the state as Payme reads them', () => {
    const t = aTransaction({ state: 2, performTime: NOW });
    expect(paymeResult.check(t)).toEqual({
      create_time: t.createTime,
      perform_time: NOW,
      cancel_time: 0,
      transaction: 'pm-1',
      state: 2,
      reason: null,
    });
    expect(
      paymeResult
        .statement([t, aTransaction({ id: 'pm-old', paymeTime: 1 })], NOW - 5000, NOW)
        .transactions.map((x) => x.id),
    ).toEqual(['pm-1']);
  });
});
