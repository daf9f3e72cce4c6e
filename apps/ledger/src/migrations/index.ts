import { LedgerInit1765500000000 } from './1765500000000-init';
import { LedgerRefundHolds1765600000000 } from './1765600000000-refund-holds';
import { LedgerHoldConfirmed1765700000000 } from './1765700000000-hold-confirmed';
import { LedgerRateConversion1765800000000 } from './1765800000000-rate-conversion';
import { LedgerAwaitingRatesOrder1765800000001 } from './1765800000001-awaiting-rates-order';
import { LedgerManualAdjustments1765830800000 } from './1765830800000-manual-adjustments';
import { LedgerP2pFees1765800000312 } from './1765800000312-p2p-fees';
import { LedgerOpsOutboxView1765900000000 } from './1765900000000-ops-outbox-view';
import { LedgerAwaitingRatesParked1765900000001 } from './1765900000001-awaiting-rates-parked';
import { LedgerCreditReleases1765900000344 } from './1765900000344-credit-releases';
import { LedgerReceivableNeverPositive1765900000348 } from './1765900000348-receivable-never-positive';
import { LedgerSettlementCredits1765900000351 } from './1765900000351-settlement-credits';
import { LedgerHoldRefusals1765900000354 } from './1765900000354-hold-refusals';
import { LedgerHoldGenerations1765900000355 } from './1765900000355-hold-generations';
import { LedgerHoldRefusalsPurged1765900000356 } from './1765900000356-hold-refusals-purged';

export const LEDGER_MIGRATIONS = [
  LedgerInit1765500000000,
  LedgerRefundHolds1765600000000,
  LedgerHoldConfirmed1765700000000,
  LedgerRateConversion1765800000000,
  LedgerAwaitingRatesOrder1765800000001,
  LedgerManualAdjustments1765830800000,
  LedgerP2pFees1765800000312,
  LedgerOpsOutboxView1765900000000,
  LedgerAwaitingRatesParked1765900000001,
  LedgerCreditReleases1765900000344,
  LedgerReceivableNeverPositive1765900000348,
  LedgerSettlementCredits1765900000351,
  LedgerHoldRefusals1765900000354,
  LedgerHoldGenerations1765900000355,
  LedgerHoldRefusalsPurged1765900000356,
];
