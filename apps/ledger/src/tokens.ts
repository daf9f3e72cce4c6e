export const LEDGER_CONFIG = Symbol('LEDGER_CONFIG');
export const LEDGER_INBOX = Symbol('LEDGER_INBOX');
// The one Clock of all services (libs/platform).
export { CLOCK, systemClock } from '@payments/platform';
export type { Clock } from '@payments/platform';
/** How far the ledger's events consumer has read a topic (libs/messaging ReadThrough, decision 357). */
export const EVENTS_READ_THROUGH = Symbol('EVENTS_READ_THROUGH');
export interface EventsReadThrough {
  through(topic: string): Promise<Date | null>;
  close(): Promise<void>;
}
