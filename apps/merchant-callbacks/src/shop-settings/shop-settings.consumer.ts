import { Controller, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Envelope, parsePayload, shopCallbackSettings, ShopSettingsTypes } from '@payments/contracts';
import { DeliveryRepository } from '../deliver/delivery.repository';
import { ShopCallbackSettingsRepository } from './shop-callback-settings.repository';

@Controller()
export class ShopSettingsConsumer {
  private readonly logger = new Logger(ShopSettingsConsumer.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopCallbackSettingsRepository,
    private readonly deliveries: DeliveryRepository,
  ) {}

  /**
   * Keeps the newest callback URL and secret of each shop (idempotent by version). Deliveries
   * read them when they are sent, so a merchant who fixes its URL gets the waiting callbacks there.
   */
  @EventPattern(ShopSettingsTypes.snapshot)
  async apply(@Payload() message: Envelope): Promise<void> {
    const snapshot = parsePayload(shopCallbackSettings, message.payload, message.type);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.shops.upsert(m, snapshot))) return;
      this.deliveries.notify(m);
      this.logger.log(
        `shop ${snapshot.shopId} callback settings v${snapshot.version} applied (${snapshot.callbackUrl ? 'callback URL set' : 'no callback URL'})`,
      );
    });
  }
}
