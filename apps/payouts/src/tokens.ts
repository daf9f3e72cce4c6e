export const PAYOUTS_OUTBOX = Symbol('PAYOUTS_OUTBOX');
export const PAYOUTS_INBOX = Symbol('PAYOUTS_INBOX');
export const CLOCK = Symbol('CLOCK');

/** The only source of "now" in the service, replaceable in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
