export const MERCHANT_CALLBACKS_CONFIG = Symbol('MERCHANT_CALLBACKS_CONFIG');
export const MERCHANT_CALLBACKS_INBOX = Symbol('MERCHANT_CALLBACKS_INBOX');
export const CLOCK = Symbol('CLOCK');

/** The only source of "now" in the service, replaceable in tests. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
export type { MerchantCallbacksConfig } from './config';
