import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min, ValidateBy } from 'class-validator';
import {
  FeedEvent,
  FeedObjectType,
  FeedObjectTypes,
  FeedPage,
  MerchantCallbackCommandTypes,
  ReadFeedQuery,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '@payments/merchant-admin';
import { MerchantEndpoint } from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import { feedAnswerShapes, feedPageExample } from './events.examples';
import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';

/** What a merchant gets: the feed's positions become opaque cursors. */
export interface EventsPage {
  events: (Omit<FeedEvent, 'position'> & { cursor: string })[];
  nextCursor: string;
  hasMore: boolean;
}

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 500;

export class ReadEventsDto {
  @ApiPropertyOptional({
    description:
      'Read the events after this one: the `nextCursor` of a page, or the `cursor` of the last event processed. Left out: from the oldest event kept (at least 30 days).',
    example: encodeFeedCursor(1040),
  })
  @IsOptional()
  @IsString()
  @ValidateBy({
    name: 'isFeedCursor',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && decodeFeedCursor(v) !== null,
      defaultMessage: () => "must be a cursor this feed gave (a page's nextCursor or an event's cursor)",
    },
  })
  after?: string;

  @ApiPropertyOptional({
    default: FEED_DEFAULT_LIMIT,
    minimum: 1,
    maximum: FEED_MAX_LIMIT,
    description:
      'At most this many events. A page also stops once its events reach about 512 KB (at least one ' +
      'event is always given): it may hold fewer than `limit` with `hasMore` true; read on from `nextCursor`.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be a whole number' })
  @Min(1)
  @Max(FEED_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    enum: FeedObjectTypes,
    description:
      'Only status changes of orders, payouts or P2P transactions, or only the changes of the balance (`balance`).',
  })
  @IsOptional()
  @IsIn(FeedObjectTypes)
  objectType?: FeedObjectType;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Only status changes of this order, payout or P2P transaction, or the balance change of this ledger transaction.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'must be an order, payout, P2P or ledger transaction id (UUID)' })
  objectId?: string;
}

/**
 * The shop's events feed: every status change of its orders, payouts and P2P transactions with the
 * body its callback carried, and every change of its balance (`balance.updated`, feed only:
 * decision 314), in one order per shop, paged by an opaque cursor. Callbacks for speed, the feed
 * for completeness (docs/merchant-contract.md). Answered by merchant-callbacks.
 */
@ApiTags('events')
@UseGuards(MerchantAuthGuard)
@Controller(['events', 'api/v1/events'])
export class EventsController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get()
  @MerchantEndpoint({
    summary:
      "List the shop's events: every status change of its orders, payouts and P2P transactions and every change of its balance, oldest first",
    description:
      'Each event carries the callback body byte for byte (`body`, a JSON text) and an `X-Signature`-style ' +
      "`signature` of it, made when the page is read with the shop's current callback secret (and, while a " +
      'rotation overlaps, the replaced one: one `v1=` each): verify it exactly as a callback. Store `nextCursor` and read again with `?after=` to get what came since; an ' +
      "empty page keeps the cursor. One total order per shop; another shop's events never appear. " +
      'A change of the balance is an event of type `balance.updated` (`objectType` `balance`, `objectId` the last ledger ' +
      'transaction that moved it, as GET /balance/transactions lists it), one per batch the ledger booked, shop and currency: ' +
      'its body carries the `currency`, the `available`, `pending`, `reserved` and `owed` figures after the batch (what GET /balance ' +
      'answers then), the last `transaction` and the `transactions` of the batch that moved it, in order (each `id`, `kind`, ' +
      '`source`, `amount`). Balance events are on the feed only, never sent as callbacks.',
    response: { ...feedAnswerShapes, example: feedPageExample, description: 'A page of events' },
    problems: [400, 503],
  })
  async list(@CurrentShop() shop: ShopPrincipal, @Query() q: ReadEventsDto): Promise<EventsPage> {
    const query: ReadFeedQuery = {
      shopId: shop.shopId,
      afterPosition: q.after ? decodeFeedCursor(q.after)! : 0,
      limit: q.limit ?? FEED_DEFAULT_LIMIT,
      ...(q.objectType ? { objectType: q.objectType } : {}),
      ...(q.objectId ? { objectId: q.objectId } : {}),
    };
    const page = await ask<FeedPage>(
      this.client,
      Topics.merchantCallbacksCommands,
      shop.shopId,
      MerchantCallbackCommandTypes.feed,
      query,
    );
    return {
      events: page.events.map(({ position, ...e }) => ({ cursor: encodeFeedCursor(position), ...e })),
      nextCursor: encodeFeedCursor(page.lastPosition),
      hasMore: page.hasMore,
    };
  }
}
