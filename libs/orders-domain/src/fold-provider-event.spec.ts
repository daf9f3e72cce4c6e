import type { OrderStatus } from '@payments/contracts';
import { foldProviderEvent, FoldResult, OrderFacts, ProviderReport, ShopRules } from './fold-provider-event';
import { explainTimeout } from './need-action';

const order = (over: Partial<OrderFacts> = {}): OrderFacts => ({
  status: 'in_progress',
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
  ...over,
});
const report = (over: Partial<ProviderReport> = {}): ProviderReport => ({
  status: 'success',
  amount: '100.00',
  currency: 'USD',
  ...over,
});
const rules = (over: Partial<ShopRules> = {}): ShopRules => ({
  amountDeviation: { lowerPercent: '2', upperPercent: '5' },
  autoFinalizeNeedAction: false,
  ...over,
});

const to = (
  status: OrderStatus,
  statusCode: string,
  extra: Partial<Extract<FoldResult, { kind: 'transition' }>> = {},
) => ({ kind: 'transition', status, statusCode, needActionReason: null, needAction: null, ...extra });
/** The rows below check the decision; the explanation of each rule is checked in full at the end. */
const ruled = (rule: string) => expect.objectContaining({ rule }) as never;
const noop = (reason: string) => ({ kind: 'noop', reason });

describe('foldProviderEvent: the rules of spec section 3 and ARCHITECTURE.md section 4', () => {
  it.each([
    // [when, order, report, rules, then]
    ['a success with the exact amount completes the order', order(), report(), rules(), to('completed', '0-01-00')],
    [
      'a success with the same value written differently is the exact amount',
      order(),
      report({ amount: '100' }),
      rules(),
      to('completed', '0-01-00'),
    ],
    [
      'a registered order completes on success too',
      order({ status: 'registered' }),
      report(),
      rules(),
      to('completed', '0-01-00'),
    ],
    [
      'an amount below, within the allowed range, is accepted automatically',
      order(),
      report({ amount: '98.00' }),
      rules(),
      to('completed', '0-07-01', { acceptedAmount: '98', reportedAmount: '98' }),
    ],
    [
      'an amount above, within the allowed range, is accepted automatically',
      order(),
      report({ amount: '105.00' }),
      rules(),
      to('completed', '0-07-01', { acceptedAmount: '105', reportedAmount: '105' }),
    ],
    [
      'an amount just outside the lower bound needs action (2-07-04)',
      order(),
      report({ amount: '97.99' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        needAction: ruled('amount_outside_range'),
        reportedAmount: '97.99',
      }),
    ],
    [
      'an amount just outside the upper bound needs action (2-07-04)',
      order(),
      report({ amount: '105.01' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        needAction: ruled('amount_outside_range'),
        reportedAmount: '105.01',
      }),
    ],
    [
      'with no range configured, any difference needs action',
      order(),
      report({ amount: '100.01' }),
      rules({ amountDeviation: { lowerPercent: '0', upperPercent: '0' } }),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        needAction: ruled('amount_outside_range'),
        reportedAmount: '100.01',
      }),
    ],
    [
      'a different currency needs action, never accepted, even with the same amount',
      order(),
      report({ currency: 'EUR' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        needAction: ruled('currency_differs'),
        reportedAmount: '100.00',
      }),
    ],
    [
      'a different token standard is a different currency',
      order({ currency: 'USDT', tokenStandard: 'TRC20' }),
      report({ currency: 'USDT', tokenStandard: 'ERC20' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        needAction: ruled('currency_differs'),
        reportedAmount: '100.00',
      }),
    ],
    [
      'a missing token standard on a token order is a different currency',
      order({ currency: 'USDT', tokenStandard: 'TRC20' }),
      report({ currency: 'USDT' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        needAction: ruled('currency_differs'),
        reportedAmount: '100.00',
      }),
    ],
    [
      'an asset code and the same coin with its token standard are the same currency',
      order({ currency: 'USDT_TRON' }),
      report({ currency: 'USDT', tokenStandard: 'TRC20' }),
      rules(),
      to('completed', '0-01-00'),
    ],
    [
      'an asset code of another network is a different currency',
      order({ currency: 'USDT_TRON' }),
      report({ currency: 'USDT_ETHEREUM' }),
      rules(),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        needAction: ruled('currency_differs'),
        reportedAmount: '100.00',
      }),
    ],
    ['a decline fails the order', order(), report({ status: 'failed' }), rules(), to('failed', '2-07-01')],
    [
      'a decline with another amount still fails it: no money moved',
      order(),
      report({ status: 'failed', amount: '1.00' }),
      rules(),
      to('failed', '2-07-01'),
    ],
    [
      'pending moves a registered order in progress',
      order({ status: 'registered' }),
      report({ status: 'pending' }),
      rules(),
      to('in_progress', '1-01-02'),
    ],
    [
      'pending on an order in progress changes nothing',
      order(),
      report({ status: 'pending' }),
      rules(),
      noop('no_change'),
    ],
  ])('when %s', (_when, o, r, s, expected) => {
    expect(foldProviderEvent(o, r, s)).toEqual(expected);
  });

  describe('need_action 2-07-04 and the follow-up callback', () => {
    const waiting = order({ status: 'need_action', needActionReason: 'amount_mismatch' });
    const waitingCurrency = order({ status: 'need_action', needActionReason: 'currency_mismatch' });
    it.each([
      [
        'with auto-finalization on, the right amount resolves it',
        waiting,
        report(),
        rules({ autoFinalizeNeedAction: true }),
        to('completed', '0-01-00'),
      ],
      [
        'with auto-finalization on, an amount within range resolves it with that amount',
        waiting,
        report({ amount: '99' }),
        rules({ autoFinalizeNeedAction: true }),
        to('completed', '0-07-01', { acceptedAmount: '99', reportedAmount: '99' }),
      ],
      [
        'with auto-finalization on, a decline resolves it as failed',
        waiting,
        report({ status: 'failed' }),
        rules({ autoFinalizeNeedAction: true }),
        to('failed', '2-07-01'),
      ],
      [
        'with auto-finalization off, the right amount leaves it for an operator',
        waiting,
        report(),
        rules(),
        noop('awaiting_operator'),
      ],
      [
        'with auto-finalization off, a decline leaves it for an operator',
        waiting,
        report({ status: 'failed' }),
        rules(),
        noop('awaiting_operator'),
      ],
      [
        'the same wrong amount again changes nothing',
        waiting,
        report({ amount: '50' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('still_mismatched'),
      ],
      [
        'a currency mismatch after an amount mismatch is recorded as such',
        waiting,
        report({ currency: 'EUR' }),
        rules({ autoFinalizeNeedAction: true }),
        to('need_action', '2-07-04', {
          needActionReason: 'currency_mismatch',
          needAction: ruled('currency_differs'),
          reportedAmount: '100.00',
        }),
      ],
      [
        'pending says nothing new',
        waiting,
        report({ status: 'pending' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('awaiting_operator'),
      ],
      [
        'after a currency mismatch, the right currency and amount leave it for an operator even with auto-finalization on',
        waitingCurrency,
        report(),
        rules({ autoFinalizeNeedAction: true }),
        noop('awaiting_operator'),
      ],
      [
        'after a currency mismatch, an amount within range in the right currency leaves it for an operator',
        waitingCurrency,
        report({ amount: '99' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('awaiting_operator'),
      ],
      [
        'after a currency mismatch, another amount in the right currency leaves it for an operator',
        waitingCurrency,
        report({ amount: '50' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('awaiting_operator'),
      ],
      [
        'after a currency mismatch, a decline leaves it for an operator even with auto-finalization on',
        waitingCurrency,
        report({ status: 'failed' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('awaiting_operator'),
      ],
      [
        'after a currency mismatch, the currency is never accepted automatically',
        waitingCurrency,
        report({ currency: 'EUR' }),
        rules({ autoFinalizeNeedAction: true }),
        noop('still_mismatched'),
      ],
    ])('when %s', (_when, o, r, s, expected) => {
      expect(foldProviderEvent(o, r, s)).toEqual(expected);
    });
  });

  describe('need_action after a provider timeout', () => {
    const timedOut = order({ status: 'need_action', needActionReason: 'provider_timeout' });
    it.each([
      [
        'the success that arrives late resolves it, whatever the shop setting',
        timedOut,
        report(),
        rules(),
        to('completed', '0-01-00'),
      ],
      [
        'a late decline resolves it as failed',
        timedOut,
        report({ status: 'failed' }),
        rules(),
        to('failed', '2-07-01'),
      ],
      [
        'a late pending puts it back in progress',
        timedOut,
        report({ status: 'pending' }),
        rules(),
        to('in_progress', '1-01-02'),
      ],
      [
        'a late success with a wrong amount is an amount mismatch',
        timedOut,
        report({ amount: '10' }),
        rules(),
        to('need_action', '2-07-04', {
          needActionReason: 'amount_mismatch',
          needAction: ruled('amount_outside_range'),
          reportedAmount: '10',
        }),
      ],
    ])('when %s', (_when, o, r, s, expected) => {
      expect(foldProviderEvent(o, r, s)).toEqual(expected);
    });
  });

  describe('final orders never move', () => {
    it.each(['completed', 'partially_refunded', 'refunded', 'cancelled', 'failed'] as OrderStatus[])(
      'when the order is %s, then any event is a no-op',
      (status) => {
        for (const r of [
          report(),
          report({ status: 'pending' }),
          report({ status: 'failed' }),
          report({ amount: '1' }),
          report({ currency: 'EUR' }),
        ]) {
          expect(foldProviderEvent(order({ status }), r, rules({ autoFinalizeNeedAction: true }))).toEqual(
            noop('order_final'),
          );
        }
      },
    );
  });

  describe('need_action explained: the rule that fired, the money, the range in force and what resolves it', () => {
    const usd = (amount: string) => ({ amount, currency: 'USD' });
    const range = { lowerPercent: '2', upperPercent: '5', lowerBound: '98', upperBound: '105' };
    it.each([
      [
        'an amount outside the range with auto-finalization off, then an operator resolves it',
        report({ amount: '90.00' }),
        rules(),
        {
          rule: 'amount_outside_range',
          expected: usd('100.00'),
          reported: usd('90.00'),
          allowedRange: range,
          resolution: {
            autoFinalization: false,
            resolvedBy: 'operator',
            description: expect.stringContaining('is off'),
          },
        },
      ],
      [
        'an amount outside the range with auto-finalization on, then a follow-up callback or an operator resolves it',
        report({ amount: '110.00' }),
        rules({ autoFinalizeNeedAction: true }),
        {
          rule: 'amount_outside_range',
          expected: usd('100.00'),
          reported: usd('110.00'),
          allowedRange: range,
          resolution: {
            autoFinalization: true,
            resolvedBy: 'follow_up_callback_or_operator',
            description: expect.stringContaining('is on'),
          },
        },
      ],
      [
        'another currency with auto-finalization on, then only an operator resolves it',
        report({ currency: 'EUR' }),
        rules({ autoFinalizeNeedAction: true }),
        {
          rule: 'currency_differs',
          expected: usd('100.00'),
          reported: { amount: '100.00', currency: 'EUR' },
          allowedRange: range,
          resolution: {
            autoFinalization: true,
            resolvedBy: 'operator',
            description: expect.stringContaining('never accepted automatically'),
          },
        },
      ],
      [
        'another token standard, then the reported standard is shown',
        report({ currency: 'USDT', tokenStandard: 'ERC20' }),
        rules(),
        expect.objectContaining({
          rule: 'currency_differs',
          reported: { amount: '100.00', currency: 'USDT', tokenStandard: 'ERC20' },
        }),
      ],
      [
        'an amount with an asymmetric range of fractions, then the bounds are exact',
        report({ amount: '1' }),
        rules({ amountDeviation: { lowerPercent: '0.5', upperPercent: '12.25' } }),
        expect.objectContaining({
          rule: 'amount_outside_range',
          allowedRange: { lowerPercent: '0.5', upperPercent: '12.25', lowerBound: '99.5', upperBound: '112.25' },
        }),
      ],
    ])('when %s', (_when, r, s, explanation) => {
      const result = foldProviderEvent(order(), r, s);
      expect(result).toMatchObject({ kind: 'transition', status: 'need_action', statusCode: '2-07-04' });
      expect(result.kind === 'transition' && result.needAction).toEqual(explanation);
    });

    it.each([
      [false, 'provider_response'],
      [true, 'provider_response'],
    ])(
      'when the provider times out with auto-finalization %s, then its late answer resolves it (%s)',
      (auto, resolvedBy) => {
        expect(explainTimeout(order(), rules({ autoFinalizeNeedAction: auto }))).toEqual({
          rule: 'provider_timeout',
          expected: usd('100.00'),
          allowedRange: range,
          resolution: { autoFinalization: auto, resolvedBy, description: expect.stringContaining('late answer') },
        });
      },
    );

    it('when the order leaves need_action, then the explanation is cleared', () => {
      const waiting = order({ status: 'need_action', needActionReason: 'amount_mismatch' });
      expect(foldProviderEvent(waiting, report(), rules({ autoFinalizeNeedAction: true }))).toMatchObject({
        status: 'completed',
        needAction: null,
      });
    });
  });
});
