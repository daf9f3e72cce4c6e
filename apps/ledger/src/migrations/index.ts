import { LedgerInit1765500000000 } from './1765500000000-init';

export const LEDGER_MIGRATIONS = [LedgerInit1765500000000];
