import type { TransferStatus } from '@payments/contracts';
import type { StatusCode } from '@payments/status-codes';
import type { TransferFacts } from './fold-transfer-event';
import { assertNever } from '@payments/exhaustive';
import { TRANSFER_CODES, TransferKind } from './transfer-codes';

/** What an operator found out from the provider about a payout or P2P transaction in need_action. */
export type OperatorDecision = 'complete' | 'fail';

export type OperatorResolution =
  | { kind: 'transition'; status: TransferStatus; statusCode: StatusCode; needActionReason: null }
  | { kind: 'rejected'; reason: string };

/**
 * The only way out of a mismatch (2-07-04) for money going out, and a way out of a timeout the
 * provider never answers: an operator checks with the provider and completes or fails it. Only
 * need_action waits for an operator; anything else has its answer from the provider already.
 */
export function resolveByOperator(
  kind: TransferKind,
  facts: Pick<TransferFacts, 'status'>,
  decision: OperatorDecision,
): OperatorResolution {
  if (facts.status !== 'need_action')
    return {
      kind: 'rejected',
      reason: `only a ${kind === 'payout' ? 'payout' : 'P2P transaction'} in need_action can be resolved; this one is ${facts.status}`,
    };
  const codes = TRANSFER_CODES[kind];
  switch (decision) {
    case 'complete':
      return { kind: 'transition', status: 'completed', statusCode: codes.completedByOperator, needActionReason: null };
    case 'fail':
      return { kind: 'transition', status: 'failed', statusCode: codes.failedByOperator, needActionReason: null };
    default:
      return assertNever(decision);
  }
}
