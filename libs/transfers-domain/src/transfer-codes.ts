import type { StatusCode } from '@payments/status-codes';

/** Payouts and P2P transactions fold provider events the same way; only their wording differs. */
export type TransferKind = 'payout' | 'p2p';

export interface TransferCodes {
  registered: StatusCode;
  inProgress: StatusCode;
  completed: StatusCode;
  declined: StatusCode;
  providerTimeout: StatusCode;
  mismatch: StatusCode;
  providerUnavailable: StatusCode;
  completedByOperator: StatusCode;
  failedByOperator: StatusCode;
}

const shared = {
  completed: '0-01-00',
  providerTimeout: '1-07-05',
  mismatch: '2-07-04',
  providerUnavailable: '2-01-01',
  completedByOperator: '1-07-06',
  failedByOperator: '1-07-07',
} as const;

export const TRANSFER_CODES: Readonly<Record<TransferKind, TransferCodes>> = {
  payout: { ...shared, registered: '1-01-03', inProgress: '1-01-04', declined: '2-07-05' },
  p2p: { ...shared, registered: '1-01-05', inProgress: '1-01-06', declined: '2-07-06' },
};
