import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  Inbox,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
} from '@payments/messaging';
import { HealthController, openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import {
  DEFAULT_DISPATCHER_OPTIONS,
  defaultInstanceId,
  DispatchQueue,
  SandboxProviderClient,
} from '@payments/provider-dispatch';
import { ProviderEventConsumer } from './apply-provider-event/provider-event.consumer';
import { PAYOUTS_CONFIG, PayoutsConfig } from './config';
import { CreatePayoutHandler } from './create-payout/create-payout.handler';
import {
  PAYOUT_DISPATCH_QUEUE,
  PAYOUT_DISPATCHER_OPTIONS,
  PAYOUT_PROVIDER,
  PayoutDispatcher,
  PayoutDispatcherOptions,
} from './dispatch-payout/payout-dispatcher.service';
import { GetPayoutHandler } from './get-payout/get-payout.handler';
import { Init1764200000000 } from './migrations/1764200000000-init';
import { PayoutEntity } from './payout.entity';
import { PayoutRepository } from './payout.repository';
import { ResolvePayoutHandler } from './resolve-payout/resolve-payout.handler';
import { CLOCK, Clock, PAYOUTS_INBOX, PAYOUTS_OUTBOX, systemClock } from './tokens';

export interface PayoutsModuleOptions {
  clock?: Clock;
  relay?: Partial<OutboxRelayServiceOptions>;
  /** The provider dispatcher: turn off its auto-start, poll faster, or replace the provider adapter. */
  dispatch?: Partial<PayoutDispatcherOptions>;
}

@Module({})
export class PayoutsModule {
  static register(config: PayoutsConfig, opts: PayoutsModuleOptions = {}): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [PayoutEntity],
      migrations: [Init1764200000000],
    };
    const dispatch: PayoutDispatcherOptions = {
      ...DEFAULT_DISPATCHER_OPTIONS,
      instanceId: defaultInstanceId(),
      ...opts.dispatch,
    };
    return {
      module: PayoutsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [
        CreatePayoutHandler,
        GetPayoutHandler,
        ProviderEventConsumer,
        ResolvePayoutHandler,
        HealthController,
      ],
      providers: [
        PayoutRepository,
        PayoutDispatcher,
        OutboxRelayService,
        { provide: PAYOUTS_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
        { provide: PAYOUTS_OUTBOX, useValue: new Outbox(config.schema) },
        {
          provide: PAYOUTS_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
          inject: [DataSource],
        },
        { provide: PAYOUT_DISPATCHER_OPTIONS, useValue: dispatch },
        {
          provide: PAYOUT_PROVIDER,
          useValue: dispatch.provider ?? new SandboxProviderClient(config.sandboxProviderUrl),
        },
        {
          provide: PAYOUT_DISPATCH_QUEUE,
          useFactory: (ds: DataSource) =>
            new DispatchQueue(ds, {
              schema: config.schema,
              table: 'provider_dispatches',
              idColumn: 'dispatch_id',
              referenceColumn: 'payout_id',
              aggregateTable: 'payouts',
            }),
          inject: [DataSource],
        },
        {
          provide: OUTBOX_RELAY_OPTIONS,
          useValue: {
            databaseUrl: config.databaseUrl,
            schema: config.schema,
            kafka: config.kafka,
            failpoint: config.failpoint,
            ...opts.relay,
          } satisfies OutboxRelayServiceOptions,
        },
      ],
    };
  }
}
