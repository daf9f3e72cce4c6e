import type { TransferStatus } from '@payments/contracts';
import type { TransferFacts } from './fold-transfer-event';
import { decideSendOutcome, SendAnswerKind, SendOutcome, shouldSendTransfer } from './send-outcome';

const facts = (status: TransferStatus = 'registered', over: Partial<TransferFacts> = {}): TransferFacts => ({
  status,
  amount: '100.00',
  currency: 'USD',
  tokenStandard: null,
  needActionReason: null,
  ...over,
});
const record = (dispatch: string, move: [TransferStatus, string, string | null] | null): SendOutcome =>
  ({
    kind: 'record',
    dispatch,
    move: move ? { status: move[0], statusCode: move[1], needActionReason: move[2] } : null,
  }) as SendOutcome;

describe('decideSendOutcome: what one send to the provider means for a payout', () => {
  it.each([
    // [when, payout, answer, last send?, then]
    [
      'the provider accepts, the payout goes in_progress (1-01-04)',
      facts(),
      'accepted',
      false,
      record('accepted', ['in_progress', '1-01-04', null]),
    ],
    [
      'the provider times out, the payout needs action 1-07-05 until its late answer',
      facts(),
      'timed_out',
      false,
      record('timed_out', ['need_action', '1-07-05', 'provider_timeout']),
    ],
    [
      'the provider refuses the request, the payout fails 2-07-05',
      facts(),
      'refused',
      false,
      record('refused', ['failed', '2-07-05', null]),
    ],
    [
      'the provider is unavailable before the last send, it is sent again',
      facts(),
      'unavailable',
      false,
      { kind: 'retry' },
    ],
    [
      'the provider is unavailable at the last send, the payout fails 2-01-01',
      facts(),
      'unavailable',
      true,
      record('gave_up', ['failed', '2-01-01', null]),
    ],
    [
      'a callback completed it first, an acceptance does not move it',
      facts('completed'),
      'accepted',
      false,
      record('accepted', null),
    ],
    [
      'a callback moved it on first, a timeout does not put it in need_action',
      facts('in_progress'),
      'timed_out',
      false,
      record('timed_out', null),
    ],
    [
      'a callback failed it first, an unavailable provider is not tried again',
      facts('failed'),
      'unavailable',
      false,
      { kind: 'drop', reason: expect.stringContaining('failed') },
    ],
  ] as [string, TransferFacts, SendAnswerKind, boolean, SendOutcome][])(
    'when %s',
    (_when, f, answer, last, expected) => {
      expect(decideSendOutcome('payout', f, answer, last)).toEqual(expected);
    },
  );

  it('when a P2P transaction is accepted, then it takes the P2P in-progress code', () => {
    expect(decideSendOutcome('p2p', facts(), 'accepted', false)).toEqual(
      record('accepted', ['in_progress', '1-01-06', null]),
    );
  });

  it.each([
    ['registered', true],
    ['in_progress', false],
    ['need_action', false],
    ['completed', false],
    ['failed', false],
  ] as [TransferStatus, boolean][])('when the payout is %s, then sending it is %s', (status, send) => {
    expect(shouldSendTransfer(status)).toBe(send);
  });
});
