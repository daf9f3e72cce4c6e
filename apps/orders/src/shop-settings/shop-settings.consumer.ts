import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Envelope, parsePayload, shopSettingsSnapshot, ShopSettingsTypes } from '@payments/contracts';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { ShopSettingsRepository } from './shop-settings.repository';

@Controller()
export class ShopSettingsConsumer {
  private readonly logger = new Logger(ShopSettingsConsumer.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: ShopSettingsRepository,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
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
      const s = this.config.schema;
      await m.query(
        `UPDATE "${s}".orders SET processing_deadline = created_at + make_interval(secs => COALESCE(($2::jsonb ->> instrument_type)::int, $3::int))
         WHERE shop_id = $1 AND NOT is_crypto AND status IN ('registered', 'in_progress', 'need_action')`,
        [
          snapshot.shopId,
          JSON.stringify(snapshot.processingTimeout.byPaymentSetting),
          snapshot.processingTimeout.defaultSeconds,
        ],
      );
      this.logger.log(`shop ${snapshot.shopId} settings v${snapshot.version} applied`);
    });
  }
}
