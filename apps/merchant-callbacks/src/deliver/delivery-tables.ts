import { ident, type Sql } from '@payments/sql';

/** The channel a committed change to the queue is announced on, so the delivery worker wakes at once. */
export function deliveryChannel(schema: string): string {
  return `${schema}_deliveries`;
}

/** An order, payout or P2P transaction: the deliveries of one object go out in sequence order. */
export interface ObjectKey {
  objectType: string;
  objectId: string;
}

/** The merchant-callbacks tables, quoted in the service's schema, for statements (libs/sql). */
export interface DeliveryTables {
  /** One row per callback to deliver: the queue and the delivery log. */
  deliveries: Sql;
  /** The log of HTTP attempts per delivery. */
  attempts: Sql;
  /** One row per object with a pending delivery: the one that goes next (decision 199). */
  heads: Sql;
  /** Per shop, the last feed position given out (decision 101). */
  feedHeads: Sql;
  /** The shops' callback settings. */
  shops: Sql;
  /** The feed's events that are not callbacks: balance changes (decision 314). */
  feedEvents: Sql;
}

export function deliveryTables(schema: string): DeliveryTables {
  return {
    deliveries: ident(schema, 'deliveries'),
    attempts: ident(schema, 'delivery_attempts'),
    heads: ident(schema, 'delivery_heads'),
    feedHeads: ident(schema, 'feed_heads'),
    shops: ident(schema, 'shops'),
    feedEvents: ident(schema, 'feed_events'),
  };
}
