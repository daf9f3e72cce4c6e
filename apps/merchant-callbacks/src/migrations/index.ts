import { Init1764200000000 } from './1764200000000-init';
import { EventsFeed1764300000000 } from './1764300000000-events-feed';
import { PreviousCallbackSecret1764900000002 } from './1764900000002-previous-callback-secret';
import { DeliveryHeads1765000000000 } from './1765000000000-delivery-heads';
import { OpsViews1766100000000 } from './1766100000000-ops-views';
import { FeedEvents1766300000314 } from './1766300000314-feed-events';

/** merchant-callbacks' schema migrations in order: the service runs them at start, its specs on their own databases. */
export const MERCHANT_CALLBACKS_MIGRATIONS = [
  Init1764200000000,
  EventsFeed1764300000000,
  PreviousCallbackSecret1764900000002,
  DeliveryHeads1765000000000,
  OpsViews1766100000000,
  FeedEvents1766300000314,
];
