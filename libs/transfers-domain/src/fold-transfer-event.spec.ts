import type { TransferStatus } from '@payments/contracts';
import { isKnownStatusCode } from '@payments/status-codes';
import { foldTransferEvent, TransferFacts, TransferFoldResult, TransferReport } from './fold-transfer-event';
import { TRANSFER_CODES, TransferKind } from './transfer-codes';

const facts = (over: Partial<TransferFacts> = {}): TransferFacts => ({
  status: 'in_progress',
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
  ...over,
});
const report = (over: Partial<TransferReport> = {}): TransferReport => ({
  status: 'success',
  amount: '100.00',
  currency: 'USD',
  ...over,
});
const to = (
  status: TransferStatus,
  statusCode: string,
  extra: Partial<Extract<TransferFoldResult, { kind: 'transition' }>> = {},
) => ({ kind: 'transition', status, statusCode, needActionReason: null, ...extra });
const noop = (reason: string) => ({ kind: 'noop', reason });

const timedOut = facts({ status: 'need_action', needActionReason: 'provider_timeout' });
const amountWaits = facts({ status: 'need_action', needActionReason: 'amount_mismatch' });
const currencyWaits = facts({ status: 'need_action', needActionReason: 'currency_mismatch' });

describe('foldTransferEvent: one fold of provider events for payouts', () => {
  it.each([
    // [when, payout, report, then]
    [
      'the provider accepts (pending), a registered payout goes in_progress',
      facts({ status: 'registered' }),
      report({ status: 'pending' }),
      to('in_progress', '1-01-04'),
    ],
    ['a success with the exact amount completes it', facts(), report(), to('completed', '0-01-00')],
    [
      'a success with the same value written differently is the exact amount',
      facts(),
      report({ amount: '100' }),
      to('completed', '0-01-00'),
    ],
    [
      'a registered payout completes on success too',
      facts({ status: 'registered' }),
      report(),
      to('completed', '0-01-00'),
    ],
    ['a decline fails it', facts(), report({ status: 'failed' }), to('failed', '2-07-05')],
    [
      'any other amount needs action (2-07-04): money going out has no allowed range',
      facts(),
      report({ amount: '100.01' }),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        reportedAmount: '100.01',
        reportedCurrency: 'USD',
      }),
    ],
    [
      'a lower amount needs action too',
      facts(),
      report({ amount: '90.00' }),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        reportedAmount: '90.00',
        reportedCurrency: 'USD',
      }),
    ],
    [
      'another currency needs action, never accepted',
      facts(),
      report({ currency: 'EUR' }),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        reportedAmount: '100.00',
        reportedCurrency: 'EUR',
      }),
    ],
    [
      'another token standard is another currency',
      facts({ currency: 'USDT', tokenStandard: 'TRC20' }),
      report({ currency: 'USDT', tokenStandard: 'ERC20' }),
      to('need_action', '2-07-04', {
        needActionReason: 'currency_mismatch',
        reportedAmount: '100.00',
        reportedCurrency: 'USDT',
      }),
    ],
    ['a pending while in progress changes nothing', facts(), report({ status: 'pending' }), noop('no_change')],
    // Duplicates and stale events
    ['a duplicate success after completion is a no-op', facts({ status: 'completed' }), report(), noop('final')],
    [
      'a stale pending after completion never moves it back',
      facts({ status: 'completed' }),
      report({ status: 'pending' }),
      noop('final'),
    ],
    [
      'a late decline after completion never moves it',
      facts({ status: 'completed' }),
      report({ status: 'failed' }),
      noop('final'),
    ],
    ['a late success after a decline never moves it', facts({ status: 'failed' }), report(), noop('final')],
    // need_action after the provider's timeout: the late answer resolves it
    [
      'after a timeout, the late pending puts it in progress',
      timedOut,
      report({ status: 'pending' }),
      to('in_progress', '1-01-04'),
    ],
    ['after a timeout, the late success completes it', timedOut, report(), to('completed', '0-01-00')],
    ['after a timeout, the late decline fails it', timedOut, report({ status: 'failed' }), to('failed', '2-07-05')],
    [
      'after a timeout, a late success with another amount needs action 2-07-04',
      timedOut,
      report({ amount: '1.00' }),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        reportedAmount: '1.00',
        reportedCurrency: 'USD',
      }),
    ],
    // need_action 2-07-04: only an operator settles it
    [
      'waiting on an amount mismatch, a follow-up with the right amount does not settle it',
      amountWaits,
      report(),
      noop('awaiting_operator'),
    ],
    [
      'waiting on an amount mismatch, a decline does not settle it',
      amountWaits,
      report({ status: 'failed' }),
      noop('awaiting_operator'),
    ],
    [
      'waiting on a currency mismatch, a follow-up in the right currency does not settle it',
      currencyWaits,
      report(),
      noop('awaiting_operator'),
    ],
    [
      'waiting on a currency mismatch, the same mismatch again is a no-op',
      currencyWaits,
      report({ currency: 'EUR' }),
      noop('awaiting_operator'),
    ],
  ])('when %s', (_when, f, r, expected) => {
    expect(foldTransferEvent('payout', f, r)).toEqual(expected);
  });
});

describe('foldTransferEvent: P2P transactions fold the same way, in their own words', () => {
  it.each([
    ['accepted', facts({ status: 'registered' }), report({ status: 'pending' }), to('in_progress', '1-01-06')],
    ['completed', facts(), report(), to('completed', '0-01-00')],
    ['declined', facts(), report({ status: 'failed' }), to('failed', '2-07-06')],
    [
      'another amount',
      facts(),
      report({ amount: '99.99' }),
      to('need_action', '2-07-04', {
        needActionReason: 'amount_mismatch',
        reportedAmount: '99.99',
        reportedCurrency: 'USD',
      }),
    ],
  ])('when the provider reports %s', (_when, f, r, expected) => {
    expect(foldTransferEvent('p2p', f, r)).toEqual(expected);
  });

  it.each(['payout', 'p2p'] as TransferKind[])(
    'when a %s code is used, then it is in the status code catalogue',
    (kind) => {
      for (const code of Object.values(TRANSFER_CODES[kind])) expect(isKnownStatusCode(code)).toBe(true);
    },
  );
});

describe('no processing timeout for payouts and P2P (spec section 3)', () => {
  it.each([
    ['registered', facts({ status: 'registered' })],
    ['in_progress', facts()],
    ['need_action after a timeout', timedOut],
  ])(
    'when a %s payout is as old as you like, then nothing but a provider event or an operator moves it: the fold has no clock and no expiry event',
    (_when, f) => {
      // The only inputs are the payout and a provider report; there is no "time passed" report to fold.
      expect(foldTransferEvent.length).toBe(3);
      const stillOpen = foldTransferEvent('payout', f, report({ status: 'pending' }));
      expect(stillOpen.kind === 'transition' ? stillOpen.status : f.status).not.toBe('failed');
    },
  );
});
