export const ORDERS_OUTBOX = Symbol('ORDERS_OUTBOX');
export const ORDERS_INBOX = Symbol('ORDERS_INBOX');
// The one Clock of all services (libs/platform), under the names this service has always imported.
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';

/** The card vault (libs/card-vault): the dispatcher opens a hosted page's card just before the send. */
export const ORDERS_CARD_VAULT = Symbol('ORDERS_CARD_VAULT');
