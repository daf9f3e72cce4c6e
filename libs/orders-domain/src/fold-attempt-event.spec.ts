import type { OrderStatus } from '@payments/contracts';
import { foldAttemptEvent, foldProviderEvent, OrderFacts, ProviderReport, ShopRules } from './fold-provider-event';

const order = (status: OrderStatus, over: Partial<OrderFacts> = {}): OrderFacts => ({
  status,
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
  ...over,
});
const report = (status: ProviderReport['status']): ProviderReport => ({ status, amount: '100.00', currency: 'USD' });
const rules: ShopRules = { amountDeviation: { lowerPercent: '0', upperPercent: '0' }, autoFinalizeNeedAction: true };
const superseded = { superseded: true };

/** Decision 322: a late report on an attempt a failover replaced never moves the order as if it were current. */
describe('foldAttemptEvent: reports on an attempt a failover replaced', () => {
  it.each<[OrderStatus, ProviderReport['status']]>([
    ['registered', 'failed'],
    ['in_progress', 'failed'],
    ['registered', 'pending'],
    ['in_progress', 'pending'],
  ])('when the order is %s and the replaced attempt reports %s, then the order does not move', (status, reported) => {
    expect(foldAttemptEvent(order(status), report(reported), rules, superseded)).toEqual({
      kind: 'noop',
      reason: 'superseded_attempt',
    });
  });

  it.each<OrderStatus>(['registered', 'in_progress'])(
    'when the order is %s and the replaced attempt reports success, then need_action duplicate_payment 2-07-07 for an operator',
    (status) => {
      expect(foldAttemptEvent(order(status), report('success'), rules, superseded)).toEqual({
        kind: 'transition',
        status: 'need_action',
        statusCode: '2-07-07',
        needActionReason: 'duplicate_payment',
        needAction: expect.objectContaining({
          rule: 'duplicate_payment',
          expected: { amount: '100.00', currency: 'USD' },
          reported: { amount: '100.00', currency: 'USD' },
          resolution: expect.objectContaining({ resolvedBy: 'operator' }),
        }),
        reportedAmount: '100.00',
      });
    },
  );

  it('when the newer attempt timed out (need_action provider_timeout), then a replaced attempt’s success is a duplicate too', () => {
    const waiting = order('need_action', { needActionReason: 'provider_timeout' });
    expect(foldAttemptEvent(waiting, report('success'), rules, superseded)).toMatchObject({
      status: 'need_action',
      needActionReason: 'duplicate_payment',
    });
  });

  it.each<OrderStatus>(['completed', 'failed', 'cancelled'])(
    'when the order is already %s, then a replaced attempt’s report never moves it',
    (status) => {
      for (const s of ['success', 'failed', 'pending'] as const)
        expect(foldAttemptEvent(order(status), report(s), rules, superseded)).toEqual({
          kind: 'noop',
          reason: 'order_final',
        });
    },
  );

  it('when the order waits for an operator because of a duplicate, then no report of either attempt moves it', () => {
    const dup = order('need_action', { needActionReason: 'duplicate_payment' });
    for (const s of ['success', 'failed', 'pending'] as const) {
      expect(foldAttemptEvent(dup, report(s), rules, superseded)).toMatchObject({ kind: 'noop' });
      expect(foldAttemptEvent(dup, report(s), rules, { superseded: false })).toEqual({
        kind: 'noop',
        reason: 'awaiting_operator',
      });
    }
  });

  it('when the attempt is the current one, then the fold is the order’s fold', () => {
    for (const s of ['success', 'failed', 'pending'] as const)
      expect(foldAttemptEvent(order('in_progress'), report(s), rules, { superseded: false })).toEqual(
        foldProviderEvent(order('in_progress'), report(s), rules),
      );
  });
});
