import type { TransferStatus } from '@payments/contracts';
import { OperatorDecision, OperatorResolution, resolveByOperator } from './operator-resolution';
import { TransferKind } from './transfer-codes';

const to = (status: TransferStatus, statusCode: string): OperatorResolution => ({
  kind: 'transition',
  status,
  statusCode: statusCode as never,
  needActionReason: null,
});

describe('resolveByOperator: an operator settles a payout or P2P transaction in need_action', () => {
  it.each([
    // [when, kind, status, decision, then]
    ['a payout waiting on a mismatch is completed', 'payout', 'need_action', 'complete', to('completed', '1-07-06')],
    ['a payout waiting on a mismatch is failed', 'payout', 'need_action', 'fail', to('failed', '1-07-07')],
    ['a P2P transaction in need_action is completed', 'p2p', 'need_action', 'complete', to('completed', '1-07-06')],
    [
      'a completed payout cannot be resolved again',
      'payout',
      'completed',
      'fail',
      { kind: 'rejected', reason: expect.stringContaining('completed') },
    ],
    [
      'an in-progress payout waits for its provider, not an operator',
      'payout',
      'in_progress',
      'complete',
      { kind: 'rejected', reason: expect.stringContaining('in_progress') },
    ],
    [
      'a failed P2P transaction stays failed',
      'p2p',
      'failed',
      'complete',
      { kind: 'rejected', reason: expect.stringContaining('P2P transaction in need_action') },
    ],
  ] as [string, TransferKind, TransferStatus, OperatorDecision, OperatorResolution][])(
    'when %s',
    (_when, kind, status, decision, expected) => {
      expect(resolveByOperator(kind, { status }, decision)).toEqual(expected);
    },
  );
});
