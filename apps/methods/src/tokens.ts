export const METHODS_CONFIG = Symbol('METHODS_CONFIG');
// The one Clock of all services (libs/platform), under the names this service has always imported.
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';
