import type { OrderStatus } from '@payments/contracts';
import type { NeedAction, OrderFacts, ShopRules } from '@payments/orders-domain';
import { AttemptOutcome, decideAttemptOutcome, RetryPolicy, retryDelayMs, shouldSend } from './attempt-outcome';
import type { ProviderAnswer } from './payment-provider';

const order = (status: OrderStatus = 'registered', over: Partial<OrderFacts> = {}): OrderFacts => ({
  status,
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
  ...over,
});
const rules: ShopRules = { amountDeviation: { lowerPercent: '2', upperPercent: '5' }, autoFinalizeNeedAction: true };
const timeoutExplained: NeedAction = {
  rule: 'provider_timeout',
  expected: { amount: '100.00', currency: 'USD' },
  allowedRange: { lowerPercent: '2', upperPercent: '5', lowerBound: '98', upperBound: '105' },
  resolution: { autoFinalization: true, resolvedBy: 'provider_response', description: expect.any(String) },
};
const policy: RetryPolicy = { maxSends: 3, backoffMs: 1000, maxBackoffMs: 5000 };
const accepted: ProviderAnswer = { kind: 'accepted', providerPaymentId: 'sbx_1' };
const timedOut: ProviderAnswer = { kind: 'timed_out', reason: 'no answer within 5000 ms' };
const unavailable: ProviderAnswer = { kind: 'unavailable', reason: 'ECONNREFUSED' };
const refused: ProviderAnswer = { kind: 'refused', reason: 'HTTP 400' };

const record = (
  dispatch: string,
  attempt: [string, string],
  move: [OrderStatus, string, string | null] | null,
): AttemptOutcome =>
  ({
    kind: 'record',
    dispatch,
    attempt: { status: attempt[0], statusCode: attempt[1] },
    order: move
      ? {
          status: move[0],
          statusCode: move[1],
          needActionReason: move[2],
          needAction: move[2] === 'provider_timeout' ? timeoutExplained : null,
        }
      : null,
  }) as AttemptOutcome;

describe('decideAttemptOutcome: what one send of an attempt means for the attempt and its order', () => {
  it.each([
    // [when, order, answer, sends so far, then]
    [
      'the provider accepts, the registered order goes in_progress (1-01-02)',
      order(),
      accepted,
      1,
      record('accepted', ['pending', '1-01-02'], ['in_progress', '1-01-02', null]),
    ],
    [
      'the provider times out, the order needs action 1-07-02 (provider_timeout), explained with the shop range',
      order(),
      timedOut,
      1,
      record('timed_out', ['pending', '1-07-02'], ['need_action', '1-07-02', 'provider_timeout']),
    ],
    [
      'the provider refuses the request, the order fails 2-07-01',
      order(),
      refused,
      1,
      record('refused', ['failed', '2-07-01'], ['failed', '2-07-01', null]),
    ],
    [
      'the provider is unavailable at the first send, it is sent again after the backoff',
      order(),
      unavailable,
      1,
      { kind: 'retry', delayMs: 1000 },
    ],
    [
      'the provider is unavailable at the second send, the backoff doubles',
      order(),
      unavailable,
      2,
      { kind: 'retry', delayMs: 2000 },
    ],
    [
      'the provider is unavailable at the last send, the order fails 2-01-01',
      order(),
      unavailable,
      3,
      record('gave_up', ['failed', '2-01-01'], ['failed', '2-01-01', null]),
    ],
    [
      'a callback completed the order first, the accepted attempt is recorded and the order stays',
      order('completed'),
      accepted,
      1,
      record('accepted', ['pending', '1-01-02'], null),
    ],
    [
      'a callback moved the order on first, a timeout does not put it in need_action',
      order('in_progress'),
      timedOut,
      1,
      record('timed_out', ['pending', '1-07-02'], null),
    ],
    [
      'a callback put the order in need_action first, an acceptance does not move it',
      order('need_action', { needActionReason: 'amount_mismatch' }),
      accepted,
      1,
      record('accepted', ['pending', '1-01-02'], null),
    ],
    [
      'the order was cancelled meanwhile, an unavailable provider is not tried again',
      order('cancelled'),
      unavailable,
      1,
      { kind: 'drop', reason: expect.stringContaining('cancelled') },
    ],
    [
      'the order failed meanwhile, a refusal leaves it failed as it is',
      order('failed'),
      refused,
      1,
      record('refused', ['failed', '2-07-01'], null),
    ],
  ])('when %s', (_when, o, answer, sends, expected) => {
    expect(decideAttemptOutcome(o, answer, sends, policy, rules)).toEqual(expected);
  });

  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 5000],
    [10, 5000],
  ])('when it was sent %i time(s), then the next send waits %i ms', (sends, ms) => {
    expect(retryDelayMs(sends, policy)).toBe(ms);
  });

  it.each([
    ['registered', true],
    ['in_progress', false],
    ['need_action', false],
    ['completed', false],
    ['cancelled', false],
    ['failed', false],
  ] as [OrderStatus, boolean][])('when the order is %s, then sending its attempt is %s', (status, send) => {
    expect(shouldSend(status)).toBe(send);
  });
});
