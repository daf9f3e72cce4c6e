export const LEDGER_CONFIG = Symbol('LEDGER_CONFIG');
export const LEDGER_INBOX = Symbol('LEDGER_INBOX');
// The one Clock of all services (libs/platform).
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';
