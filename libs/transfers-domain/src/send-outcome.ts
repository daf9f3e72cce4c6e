import type { TransferStatus } from '@payments/contracts';
import type { StatusCode } from '@payments/status-codes';
import { foldTransferEvent, TransferFacts, TransferNeedActionReason } from './fold-transfer-event';
import { assertNever } from '@payments/exhaustive';
import { TRANSFER_CODES, TransferKind } from './transfer-codes';

/** The four things one send to a provider can come to (libs/provider-dispatch `ProviderAnswer`). */
export type SendAnswerKind = 'accepted' | 'timed_out' | 'unavailable' | 'refused';

export interface TransferMove {
  status: TransferStatus;
  statusCode: StatusCode;
  needActionReason: TransferNeedActionReason | null;
}

export type SendOutcome =
  /** Finish the dispatch row and, when the transfer still waits for this send, move it. */
  | { kind: 'record'; dispatch: 'accepted' | 'timed_out' | 'refused' | 'gave_up'; move: TransferMove | null }
  /** Send the same request again after the backoff. */
  | { kind: 'retry' }
  /** Nothing reached the provider and the transfer no longer waits for it. */
  | { kind: 'drop'; reason: string };

/** A transfer is sent only while it waits for it: a callback may have moved it first. */
export function shouldSendTransfer(status: TransferStatus): boolean {
  return status === 'registered';
}

/**
 * What one send means for the payout or P2P transaction, re-read under its lock after the send:
 * the same rules as an order's payment attempt (apps/orders dispatch-attempt), with the wording of
 * the transfer's kind.
 */
export function decideSendOutcome(
  kind: TransferKind,
  facts: TransferFacts,
  answer: SendAnswerKind,
  lastSend: boolean,
): SendOutcome {
  const codes = TRANSFER_CODES[kind];
  const waiting = shouldSendTransfer(facts.status);
  switch (answer) {
    case 'accepted': {
      // The same rule as a provider's `pending` report: registered → in_progress.
      const fold = foldTransferEvent(kind, facts, {
        status: 'pending',
        amount: facts.amount,
        currency: facts.currency,
        tokenStandard: facts.tokenStandard,
      });
      const move =
        waiting && fold.kind === 'transition'
          ? { status: fold.status, statusCode: fold.statusCode, needActionReason: fold.needActionReason }
          : null;
      return { kind: 'record', dispatch: 'accepted', move };
    }
    case 'timed_out':
      // The provider may have it: never sent again; its callback resolves the transfer.
      return {
        kind: 'record',
        dispatch: 'timed_out',
        move: waiting
          ? { status: 'need_action', statusCode: codes.providerTimeout, needActionReason: 'provider_timeout' }
          : null,
      };
    case 'unavailable':
      if (!waiting) return { kind: 'drop', reason: `${kind} is ${facts.status}; not sent again` };
      if (!lastSend) return { kind: 'retry' };
      return {
        kind: 'record',
        dispatch: 'gave_up',
        move: { status: 'failed', statusCode: codes.providerUnavailable, needActionReason: null },
      };
    case 'refused':
      return {
        kind: 'record',
        dispatch: 'refused',
        move: waiting ? { status: 'failed', statusCode: codes.declined, needActionReason: null } : null,
      };
    default:
      return assertNever(answer);
  }
}
