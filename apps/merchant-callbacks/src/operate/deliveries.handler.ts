import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  DeliveryDetailView,
  DeliveryPage,
  deliveryRef,
  DeliveryView,
  Envelope,
  errorReply,
  listDeliveriesQuery,
  MerchantCallbackCommandTypes,
  okReply,
  parsePayload,
  replayDeliveriesCommand,
  ReplayResult,
  Reply,
} from '@payments/contracts';
import { DeliveryLogRepository } from './delivery-log.repository';
import { CLOCK, Clock } from '../tokens';

/** A bulk replay touches at most this many deliveries; operators page through bigger backlogs with `since`. */
const REPLAY_LIMIT = 1000;

/** Operators' requests from the gateway (`/ops/v1/callbacks`): the delivery log and replays. */
@Controller()
export class DeliveriesHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: DeliveryLogRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(MerchantCallbackCommandTypes.list)
  async list(@Payload() message: Envelope): Promise<Reply<DeliveryPage>> {
    const q = parsePayload(listDeliveriesQuery, message.payload, message.type);
    return okReply(await this.deliveries.list({ ...q, limit: Math.min(Math.max(q.limit, 1), 200) }));
  }

  @MessagePattern(MerchantCallbackCommandTypes.get)
  async get(@Payload() message: Envelope): Promise<Reply<DeliveryDetailView>> {
    const { deliveryId } = parsePayload(deliveryRef, message.payload, message.type);
    const found = await this.deliveries.find(deliveryId);
    if (!found) return errorReply({ code: 'not_found', detail: `delivery ${deliveryId} does not exist` });
    return okReply({ ...found.view, body: JSON.parse(found.body) as unknown, attemptLog: found.attempts });
  }

  /** Sends a delivery again (delivered, failed or skipped ones too) with the same eventId and a fresh signature. */
  @MessagePattern(MerchantCallbackCommandTypes.replay)
  async replay(@Payload() message: Envelope): Promise<Reply<DeliveryView>> {
    const { deliveryId } = parsePayload(deliveryRef, message.payload, message.type);
    const replayed = await this.dataSource.transaction((m) =>
      this.deliveries.replay(m, { ids: [deliveryId] }, this.clock.now(), 1),
    );
    const found = await this.deliveries.find(deliveryId);
    if (!found) return errorReply({ code: 'not_found', detail: `delivery ${deliveryId} does not exist` });
    if (replayed.length === 0)
      return errorReply({
        code: 'conflict',
        detail: `delivery ${deliveryId} is being sent right now; replay it once the attempt is recorded`,
        extensions: { status: found.view.status },
      });
    return okReply(found.view);
  }

  @MessagePattern(MerchantCallbackCommandTypes.replayMany)
  async replayMany(@Payload() message: Envelope): Promise<Reply<ReplayResult>> {
    const c = parsePayload(replayDeliveriesCommand, message.payload, message.type);
    if (!c.deliveryIds && !c.shopId) {
      return errorReply({
        code: 'invalid',
        detail: 'name the deliveries (deliveryIds) or a shop (shopId)',
        errors: [{ path: 'shopId', message: 'is required without deliveryIds' }],
      });
    }
    const ids = await this.dataSource.transaction((m) =>
      this.deliveries.replay(
        m,
        { ids: c.deliveryIds, shopId: c.shopId, status: c.status, since: c.since ? new Date(c.since) : undefined },
        this.clock.now(),
        REPLAY_LIMIT,
      ),
    );
    return okReply({ replayed: ids.length, deliveryIds: ids });
  }
}
