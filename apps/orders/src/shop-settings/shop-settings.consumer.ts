import { Controller, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Envelope, parsePayload, shopSettingsSnapshot, ShopSettingsTypes } from '@payments/contracts';
import { OrderRepository } from '../order.repository';
import { ShopSettingsRepository } from './shop-settings.repository';

@Controller()
export class ShopSettingsConsumer {
  private readonly logger = new Logger(ShopSettingsConsumer.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: ShopSettingsRepository,
    private readonly orders: OrderRepository,
  ) {}

  /**
   * Keeps the newest snapshot of each shop (idempotent by version). A changed processing timeout
   * applies to the shop's open orders too: technical support raises it for orders already waiting.
   */
  @EventPattern(ShopSettingsTypes.snapshot)
  async apply(@Payload() message: Envelope): Promise<void> {
    const snapshot = parsePayload(shopSettingsSnapshot, message.payload, message.type);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.settings.upsert(m, snapshot))) return;
      await this.orders.reapplyProcessingTimeouts(m, snapshot.shopId, snapshot.processingTimeout);
      this.logger.log(`shop ${snapshot.shopId} settings v${snapshot.version} applied`);
    });
    // Once more after commit: a read between the store and the commit saw the snapshot it replaces.
    this.settings.forget(snapshot.shopId);
  }
}
