export const ORDERS_OUTBOX = Symbol('ORDERS_OUTBOX');
export const ORDERS_INBOX = Symbol('ORDERS_INBOX');
export const CLOCK = Symbol('CLOCK');

/** The only source of "now" in the service, replaceable in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
