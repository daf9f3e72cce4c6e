export const ORDERS_OUTBOX = Symbol('ORDERS_OUTBOX');
export const ORDERS_INBOX = Symbol('ORDERS_INBOX');
// The one Clock of all services (libs/platform), under the names this service has always imported.
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';

/** The card vault (libs/card-vault): the dispatcher opens a hosted page's card just before the send. */
export const ORDERS_CARD_VAULT = Symbol('ORDERS_CARD_VAULT');

/** Asks the ledger for a refund's hold before the refund is accepted (decision 276). */
export const ORDERS_REFUND_FUNDS = Symbol('ORDERS_REFUND_FUNDS');
