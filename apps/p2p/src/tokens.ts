export const P2P_OUTBOX = Symbol('P2P_OUTBOX');
export const P2P_INBOX = Symbol('P2P_INBOX');
export const CLOCK = Symbol('CLOCK');

/** The only source of "now" in the service, replaceable in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
