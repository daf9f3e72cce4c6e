import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  HealthReportingModule,
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
import { Init1763700000000 } from './migrations/1763700000000-init';
import { ReceivedAtIndex1765000000000 } from './migrations/1765000000000-received-at-index';
import { ProviderCallbackRepository } from './receive-callback/provider-callback.repository';
import { ReceiveCallbackController } from './receive-callback/receive-callback.controller';
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
      migrations: [Init1763700000000, ReceivedAtIndex1765000000000],
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
      controllers: [ReceiveCallbackController],
      providers: [
        OutboxRelayService,
        ProviderCallbackRepository,
        { provide: CLOCK, useValue: clock },
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
