import type { OrderStatus } from '@payments/contracts';
import type { OrderFacts, ShopRules } from '@payments/orders-domain';
import {
  decideAttemptOutcome,
  isFailoverCandidate,
  mayFailOver,
  RetryPolicy,
  timeForAnotherAttempt,
} from './attempt-outcome';
import type { ProviderAnswer } from './payment-provider';

const order = (status: OrderStatus = 'registered'): OrderFacts => ({
  status,
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
});
const rules: ShopRules = { amountDeviation: { lowerPercent: '0', upperPercent: '0' }, autoFinalizeNeedAction: false };
const policy: RetryPolicy = { maxSends: 3, backoffMs: 1000, maxBackoffMs: 5000 };
const unavailable: ProviderAnswer = { kind: 'unavailable', reason: 'HTTP 503', notSent: true };
const declined: ProviderAnswer = { kind: 'refused', reason: 'HTTP 422', statusCode: '2-07-01' };
/** A 4xx that names no decline code (400, 401, 403, 404; a 409 "payment id exists" is `timed_out`, decision 343). */
const unnamed4xx: ProviderAnswer = { kind: 'refused', reason: 'HTTP 400: bad request' };
/** A 500, 502, 504 or 408: the request reached something that may have passed it on. */
const mayHaveReached: ProviderAnswer = { kind: 'unavailable', reason: 'HTTP 502' };
const invalidData: ProviderAnswer = { kind: 'refused', reason: 'the vault refused', statusCode: '2-02-01' };
const timedOut: ProviderAnswer = { kind: 'timed_out', reason: 'no answer within 5000 ms' };
const accepted: ProviderAnswer = { kind: 'accepted' };

/** Decision 322: which sends another provider may take over, and what is recorded then. */
describe('failover of a card attempt', () => {
  it.each<[string, ProviderAnswer, number, boolean]>([
    ['unavailable on the last send, provably not sent (503, 429, refused connection)', unavailable, 3, true],
    ['unavailable on the last send without proof it was not taken (500, 502, 504, 408)', mayHaveReached, 3, false],
    ['refused without a named decline code (any other 4xx)', unnamed4xx, 1, false],
    ['unavailable before the last send (sent again to the same provider)', unavailable, 2, false],
    ['refused with a code whose retryAllowed is true (2-07-01)', declined, 1, true],
    ['refused with a code whose retryAllowed is false (2-02-01)', invalidData, 1, false],
    ['timed out: the provider may have taken the money', timedOut, 1, false],
    ['accepted', accepted, 1, false],
  ])('when the attempt was %s, then failover is %s', (_case, answer, sends, expected) => {
    expect(mayFailOver(order(), answer, sends, policy, true)).toBe(expected);
  });

  it.each<[string, ProviderAnswer, number]>([
    ['unavailable on the last send, provably not sent', unavailable, 3],
    ['refused with a code whose retryAllowed is true', declined, 1],
  ])(
    'when the attempt was %s but an earlier send of it may have reached the provider (decision 343), then no failover',
    (_case, answer, sends) => {
      const history = { earlierSendMayHaveReached: true, otherAttemptMayHaveTaken: false };
      expect(mayFailOver(order(), answer, sends, policy, true, history)).toBe(false);
    },
  );

  it.each<[string, ProviderAnswer, number]>([
    ['unavailable on the last send, provably not sent', unavailable, 3],
    ['refused with a code whose retryAllowed is true', declined, 1],
  ])(
    'when the attempt was %s but another attempt of the order may have taken the money (decision 343), then no failover',
    (_case, answer, sends) => {
      const history = { earlierSendMayHaveReached: false, otherAttemptMayHaveTaken: true };
      expect(mayFailOver(order(), answer, sends, policy, true, history)).toBe(false);
    },
  );

  it('when every earlier send of the order provably took nothing, then a provably refused send fails over', () => {
    const clean = { earlierSendMayHaveReached: false, otherAttemptMayHaveTaken: false };
    expect(mayFailOver(order(), unavailable, 3, policy, true, clean)).toBe(true);
    expect(mayFailOver(order(), declined, 1, policy, true, clean)).toBe(true);
  });

  it('when the attempt is not a card attempt, then it never fails over', () => {
    expect(mayFailOver(order(), declined, 1, policy, false)).toBe(false);
    expect(mayFailOver(order(), unavailable, 3, policy, false)).toBe(false);
  });

  it.each<[string, { instrumentType: string | null; cardToken: string | null; instructions: unknown }, boolean]>([
    ['an API card order', { instrumentType: 'card', cardToken: null, instructions: null }, true],
    ['a hosted page card payment', { instrumentType: null, cardToken: 'tok_1', instructions: null }, true],
    [
      'a card order paid in the provider’s app (its payer holds the deeplinks)',
      { instrumentType: 'card', cardToken: null, instructions: { deeplinks: { ios: 'bank://pay/1' } } },
      false,
    ],
    [
      'a page card with app instructions',
      { instrumentType: null, cardToken: 'tok_1', instructions: { qr: 'x' } },
      false,
    ],
    ['a wallet order', { instrumentType: 'wallet', cardToken: null, instructions: null }, false],
  ])('when the order is %s, then it is a failover candidate: %s', (_case, order, expected) => {
    expect(isFailoverCandidate(order)).toBe(expected);
  });

  it.each<[string, Date | null, boolean]>([
    ['an hour away', new Date('2026-11-27T13:00:00Z'), true],
    ['one provider timeout away', new Date('2026-11-27T12:00:05Z'), false],
    ['less than a provider timeout away', new Date('2026-11-27T12:00:01Z'), false],
    ['past', new Date('2026-11-27T11:59:00Z'), false],
    ['none (crypto)', null, true],
  ])('when the processing deadline is %s, then there is time for another attempt: %s', (_case, deadline, expected) => {
    expect(timeForAnotherAttempt({ processingDeadline: deadline }, new Date('2026-11-27T12:00:00Z'), 5000)).toBe(
      expected,
    );
  });

  it.each<OrderStatus>(['in_progress', 'need_action', 'completed', 'failed', 'cancelled'])(
    'when the order is already %s, then it does not fail over',
    (status) => {
      expect(mayFailOver(order(status), declined, 1, policy, true)).toBe(false);
    },
  );

  it('when a declined attempt has a next provider, then it is recorded failed with its code, the order stays and a new attempt goes to the next', () => {
    expect(decideAttemptOutcome(order(), declined, 1, policy, rules, 'sandbox-b')).toEqual({
      kind: 'record',
      dispatch: 'refused',
      attempt: { status: 'failed', statusCode: '2-07-01' },
      order: null,
      failover: { provider: 'sandbox-b' },
    });
  });

  it('when an unavailable attempt gives up with a next provider, then it is recorded 2-01-01 and fails over', () => {
    expect(decideAttemptOutcome(order(), unavailable, 3, policy, rules, 'sandbox-b')).toEqual({
      kind: 'record',
      dispatch: 'gave_up',
      attempt: { status: 'failed', statusCode: '2-01-01' },
      order: null,
      failover: { provider: 'sandbox-b' },
    });
  });

  it('when no provider is left, then the order fails as without a route', () => {
    expect(decideAttemptOutcome(order(), declined, 1, policy, rules, null)).toMatchObject({
      attempt: { status: 'failed', statusCode: '2-07-01' },
      order: { status: 'failed', statusCode: '2-07-01' },
    });
    expect(decideAttemptOutcome(order(), declined, 1, policy, rules, null)).not.toHaveProperty('failover');
  });

  it('when a 4xx names no decline code, then even with a next provider the order fails 2-07-01 without failover', () => {
    const outcome = decideAttemptOutcome(order(), unnamed4xx, 1, policy, rules, 'sandbox-b');
    expect(outcome).toMatchObject({
      dispatch: 'refused',
      attempt: { status: 'failed', statusCode: '2-07-01' },
      order: { status: 'failed', statusCode: '2-07-01' },
    });
    expect(outcome).not.toHaveProperty('failover');
  });

  it('when a 500/502/504/408 gives up, then even with a next provider the order fails 2-01-01 without failover', () => {
    const outcome = decideAttemptOutcome(order(), mayHaveReached, 3, policy, rules, 'sandbox-b');
    expect(outcome).toMatchObject({
      dispatch: 'gave_up',
      attempt: { status: 'failed', statusCode: '2-01-01' },
      order: { status: 'failed', statusCode: '2-01-01' },
    });
    expect(outcome).not.toHaveProperty('failover');
  });

  it('when a refusal names a code without retry, then even with a next provider the order fails with that code', () => {
    const outcome = decideAttemptOutcome(order(), invalidData, 1, policy, rules, 'sandbox-b');
    expect(outcome).toMatchObject({
      attempt: { status: 'failed', statusCode: '2-02-01' },
      order: { status: 'failed', statusCode: '2-02-01' },
    });
    expect(outcome).not.toHaveProperty('failover');
  });

  it('when the attempt timed out, then a next provider changes nothing: need_action 1-07-02, never a new attempt', () => {
    const outcome = decideAttemptOutcome(order(), timedOut, 1, policy, rules, 'sandbox-b');
    expect(outcome).toMatchObject({
      dispatch: 'timed_out',
      attempt: { status: 'pending', statusCode: '1-07-02' },
      order: { status: 'need_action', statusCode: '1-07-02' },
    });
    expect(outcome).not.toHaveProperty('failover');
  });

  it('when a refusal comes after a callback moved the order, then no failover and the order stays', () => {
    const outcome = decideAttemptOutcome(order('in_progress'), declined, 1, policy, rules, 'sandbox-b');
    expect(outcome).toMatchObject({ order: null });
    expect(outcome).not.toHaveProperty('failover');
  });
});
