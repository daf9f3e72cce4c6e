import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  HealthReportingModule,
  KafkaRequestClient,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
} from '@payments/messaging';
import {
  CLOCK,
  type Clock,
  FAILED_AUTH_THROTTLE,
  FailedAuthThrottle,
  HealthModule,
  openServiceDatabase,
  serviceDataSourceOptions,
  systemClock,
} from '@payments/platform';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from './config';
import { ProviderCallbackRepository } from './receive-callback/provider-callback.repository';
import { CALLBACKS_INGEST_MIGRATIONS } from './migrations';
import { PaymeController } from './payme/payme.controller';
import { PaymeTransactionRepository } from './payme/payme-transaction.repository';
import { ClickController } from './click/click.controller';
import { CALLBACKS_REQUEST_CLIENT, ClickOrders } from './click/click-orders';
import { ClickTransactionRepository } from './click/click-transaction.repository';
import { ReceiveCallbackController } from './receive-callback/receive-callback.controller';
import { ShopProviderAccountsRepository } from './shop-accounts/shop-provider-accounts.repository';
import { ShopSettingsConsumer } from './shop-accounts/shop-settings.consumer';
import { CALLBACKS_OUTBOX } from './tokens';

@Module({})
export class CallbacksIngestModule {
  static register(
    config: CallbacksIngestConfig,
    relay: Partial<OutboxRelayServiceOptions> = {},
    clock: Clock = systemClock,
  ): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [],
      migrations: CALLBACKS_INGEST_MIGRATIONS,
    };
    return {
      module: CallbacksIngestModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'callbacks-ingest',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [ReceiveCallbackController, ClickController, PaymeController, ShopSettingsConsumer],
      providers: [
        OutboxRelayService,
        ProviderCallbackRepository,
        { provide: CLOCK, useValue: clock },
        ClickOrders,
        ClickTransactionRepository,
        PaymeTransactionRepository,
        ShopProviderAccountsRepository,
        {
          // Click waits for our answer, which needs the order's: asked over orders' request-reply.
          // Not part of readiness: sandbox callbacks need no broker to be stored (Click answers -7).
          // Always started: a shop's Click or Payme account may be set at any time (decision 341).
          provide: CALLBACKS_REQUEST_CLIENT,
          useFactory: async () => {
            const client = new KafkaRequestClient(
              config.kafka,
              { requester: 'callbacks-ingest', instanceId: config.instanceId },
              config.click.orderTimeoutMs,
              config.health.stallMs,
            );
            await client.start();
            return client;
          },
        },
        { provide: CALLBACKS_INGEST_CONFIG, useValue: config },
        { provide: CALLBACKS_OUTBOX, useValue: new Outbox(config.schema) },
        {
          provide: FAILED_AUTH_THROTTLE,
          useFactory: () => new FailedAuthThrottle(config.authThrottle, new Logger('ReceiveCallback')).start(),
        },
        {
          provide: OUTBOX_RELAY_OPTIONS,
          useValue: {
            databaseUrl: config.databaseUrl,
            schema: config.schema,
            kafka: config.kafka,
            failpoint: config.failpoint,
            stallMs: config.health.stallMs,
            // An outbox in front of an HTTP API: requests keep coming in while the broker is away.
            affectsReadiness: false,
            ...relay,
          } satisfies OutboxRelayServiceOptions,
        },
      ],
    };
  }
}
