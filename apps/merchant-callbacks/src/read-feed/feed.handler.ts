import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  FeedObjectType,
  FeedPage,
  MerchantCallbackCommandTypes,
  okReply,
  parsePayload,
  readFeedQuery,
  Reply,
} from '@payments/contracts';
import { FeedRepository, FeedRow } from './feed.repository';
import { ShopCallbackSettingsRepository } from '../shop-settings/shop-callback-settings.repository';
import { signatureFor, signingSecrets } from '../shop-settings/signing-secrets';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

/**
 * How many bytes of events one page carries at most, as JSON (decision 101): a reply travels as one
 * Kafka message, whose limit is 1 MB with the envelope and the gateway's answer around it. A page
 * that reaches it stops early with `hasMore`; one event is always answered, whatever its size.
 */
export const FEED_PAGE_MAX_BYTES = 512 * 1024;

/**
 * A page of the feed: each row's body exactly as posted, signed the way a callback attempt is,
 * now, with the shop's opened secrets (decision 102): the current one, and during a rotation's
 * overlap the replaced one too (one `v1=` each). Rows past FEED_PAGE_MAX_BYTES are left for the
 * next page. Pure, so the rule is testable without IO.
 */
export function toFeedPage(
  rows: FeedRow[],
  hasMore: boolean,
  afterPosition: number,
  secrets: readonly string[],
  nowSeconds: number,
  maxBytes = FEED_PAGE_MAX_BYTES,
): FeedPage {
  const events: FeedPage['events'] = [];
  let bytes = 0;
  for (const r of rows) {
    const event = {
      position: Number(r.feed_position),
      eventId: r.event_id,
      type: r.type,
      objectType: r.object_type as FeedObjectType,
      objectId: r.object_id,
      sequence: Number(r.sequence),
      body: r.body,
      signature: signatureFor(secrets, r.body, nowSeconds),
    };
    bytes += Buffer.byteLength(JSON.stringify(event)) + 1;
    if (events.length > 0 && bytes > maxBytes) {
      hasMore = true;
      break;
    }
    events.push(event);
  }
  return { events, lastPosition: events.length ? events[events.length - 1].position : afterPosition, hasMore };
}

/** The merchant's events feed (`GET /events` at the gateway), read from the deliveries of its shop. */
@Controller()
export class FeedHandler {
  constructor(
    private readonly deliveries: FeedRepository,
    private readonly shops: ShopCallbackSettingsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {}

  @MessagePattern(MerchantCallbackCommandTypes.feed)
  async read(@Payload() message: Envelope): Promise<Reply<FeedPage>> {
    const q = parsePayload(readFeedQuery, message.payload, message.type);
    const { rows, hasMore } = await this.deliveries.feed(q);
    const now = this.clock.now();
    const secrets = signingSecrets(this.config.secretKeys, q.shopId, await this.shops.forShop(q.shopId), now);
    return okReply(toFeedPage(rows, hasMore, q.afterPosition, secrets, Math.floor(now.getTime() / 1000)));
  }
}
