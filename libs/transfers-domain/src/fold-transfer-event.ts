import type { ProviderStatus, TransferStatus } from '@payments/contracts';
import { amountOf, currencyIdentity } from '@payments/money';
import type { StatusCode } from '@payments/status-codes';
import { assertNever } from '@payments/exhaustive';
import { TRANSFER_CODES, TransferKind } from './transfer-codes';

export type TransferNeedActionReason = 'amount_mismatch' | 'currency_mismatch' | 'provider_timeout';

/** What the fold needs to know of a payout or P2P transaction. */
export interface TransferFacts {
  status: TransferStatus;
  amount: string;
  currency: string;
  tokenStandard?: string | null;
  needActionReason?: TransferNeedActionReason | null;
}

/** A provider's report, already normalized to our vocabulary. */
export interface TransferReport {
  status: ProviderStatus;
  amount: string;
  currency: string;
  tokenStandard?: string | null;
}

export type TransferFoldResult =
  | {
      kind: 'transition';
      status: TransferStatus;
      statusCode: StatusCode;
      /** Set while waiting for action; null when leaving need_action. */
      needActionReason: TransferNeedActionReason | null;
      /** The amount the provider reported, when it differs. */
      reportedAmount?: string;
      reportedCurrency?: string;
    }
  | { kind: 'noop'; reason: TransferNoopReason };

export type TransferNoopReason =
  /** Completed and failed are final: late, stale and duplicate events never move them. */
  | 'final'
  /** The event says what the transfer already says. */
  | 'no_change'
  /** A mismatch waits for an operator: money going out is never settled automatically. */
  | 'awaiting_operator';

export function isFinalTransfer(status: TransferStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function sameCurrency(facts: TransferFacts, report: TransferReport): boolean {
  return (
    currencyIdentity(report.currency, report.tokenStandard) === currencyIdentity(facts.currency, facts.tokenStandard)
  );
}

/**
 * Folds one provider event into a payout or P2P transaction. Unlike orders there is no allowed
 * amount range and no automatic finalization: a different amount or currency on money going out
 * (2-07-04) always waits for an operator. A timeout (need_action 1-07-05) is resolved by the
 * provider's late answer. There is no processing timeout (spec section 3): nothing here reads time.
 */
export function foldTransferEvent(
  kind: TransferKind,
  facts: TransferFacts,
  report: TransferReport,
): TransferFoldResult {
  const codes = TRANSFER_CODES[kind];
  if (isFinalTransfer(facts.status)) return { kind: 'noop', reason: 'final' };
  const waitsForOperator =
    facts.status === 'need_action' && facts.needActionReason !== 'provider_timeout' && facts.needActionReason != null;
  if (waitsForOperator) return { kind: 'noop', reason: 'awaiting_operator' };

  switch (report.status) {
    case 'pending':
      if (facts.status === 'registered' || facts.status === 'need_action') {
        return { kind: 'transition', status: 'in_progress', statusCode: codes.inProgress, needActionReason: null };
      }
      return { kind: 'noop', reason: 'no_change' };
    case 'failed':
      return { kind: 'transition', status: 'failed', statusCode: codes.declined, needActionReason: null };
    case 'success': {
      if (!sameCurrency(facts, report)) {
        return {
          kind: 'transition',
          status: 'need_action',
          statusCode: codes.mismatch,
          needActionReason: 'currency_mismatch',
          reportedAmount: report.amount,
          reportedCurrency: report.currency,
        };
      }
      if (!amountOf(report.amount).equals(amountOf(facts.amount))) {
        return {
          kind: 'transition',
          status: 'need_action',
          statusCode: codes.mismatch,
          needActionReason: 'amount_mismatch',
          reportedAmount: report.amount,
          reportedCurrency: report.currency,
        };
      }
      return { kind: 'transition', status: 'completed', statusCode: codes.completed, needActionReason: null };
    }
    default:
      return assertNever(report.status);
  }
}
