/** The only source of "now" in a service, injected under `CLOCK` so that tests can move time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const CLOCK = Symbol('CLOCK');
