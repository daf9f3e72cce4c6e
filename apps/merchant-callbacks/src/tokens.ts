export const MERCHANT_CALLBACKS_CONFIG = Symbol('MERCHANT_CALLBACKS_CONFIG');
export const MERCHANT_CALLBACKS_INBOX = Symbol('MERCHANT_CALLBACKS_INBOX');
// The one Clock of all services (libs/platform), under the names this service has always imported.
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';
export type { MerchantCallbacksConfig } from './config';
