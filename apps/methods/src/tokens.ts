export const METHODS_CONFIG = Symbol('METHODS_CONFIG');
export const CLOCK = Symbol('CLOCK');

/** The only source of "now" in the service, replaceable in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
