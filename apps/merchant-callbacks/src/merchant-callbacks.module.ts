import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HealthReportingModule, Inbox } from '@payments/messaging';
import { HealthModule, openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import { MerchantCallbacksConfig } from './config';
import { DeliveryRepository } from './deliver/delivery.repository';
import { DeliveryLogRepository } from './operate/delivery-log.repository';
import { FeedRepository } from './read-feed/feed.repository';
import { DeliveryWorker } from './deliver/delivery-worker.service';
import { DeliveriesHandler } from './operate/deliveries.handler';
import { FeedHandler } from './read-feed/feed.handler';
import { FeedPurgeService } from './read-feed/feed-purge.service';
import { StatusChangeConsumer } from './record-delivery/status-change.consumer';
import { BalanceEventsConsumer } from './record-balance/balance-events.consumer';
import { ShopSecretResealer } from './shop-settings/shop-secret-resealer.service';
import { ShopCallbackSettingsRepository } from './shop-settings/shop-callback-settings.repository';
import { ShopSettingsConsumer } from './shop-settings/shop-settings.consumer';
import { CLOCK, Clock, MERCHANT_CALLBACKS_CONFIG, MERCHANT_CALLBACKS_INBOX, systemClock } from './tokens';
import { MERCHANT_CALLBACKS_MIGRATIONS } from './migrations';

export interface MerchantCallbacksModuleOptions {
  clock?: Clock;
}

@Module({})
export class MerchantCallbacksModule {
  static register(config: MerchantCallbacksConfig, opts: MerchantCallbacksModuleOptions = {}): DynamicModule {
    // A callback in flight holds no database connection: the HTTP call runs between two short transactions.
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [],
      migrations: MERCHANT_CALLBACKS_MIGRATIONS,
      poolSize: 10,
    };
    return {
      module: MerchantCallbacksModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'merchant-callbacks',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [StatusChangeConsumer, BalanceEventsConsumer, ShopSettingsConsumer, DeliveriesHandler, FeedHandler],
      providers: [
        DeliveryRepository,
        DeliveryLogRepository,
        FeedRepository,
        ShopCallbackSettingsRepository,
        ShopSecretResealer,
        DeliveryWorker,
        FeedPurgeService,
        { provide: MERCHANT_CALLBACKS_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
        {
          provide: MERCHANT_CALLBACKS_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
          inject: [DataSource],
        },
      ],
    };
  }
}
