import { LedgerInit1765500000000 } from './1765500000000-init';
import { LedgerRefundHolds1765600000000 } from './1765600000000-refund-holds';

export const LEDGER_MIGRATIONS = [LedgerInit1765500000000, LedgerRefundHolds1765600000000];
