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
import { P2P_CONFIG, P2pConfig } from './config';
import { CreateP2pHandler } from './create-p2p/create-p2p.handler';
import {
  P2P_DISPATCH_QUEUE,
  P2P_DISPATCHER_OPTIONS,
  P2P_PROVIDER,
  P2pDispatcher,
  P2pDispatcherOptions,
} from './dispatch-p2p/p2p-dispatcher.service';
import { GetP2pHandler } from './get-p2p/get-p2p.handler';
import { Init1764200000001 } from './migrations/1764200000001-init';
import { P2pEntity } from './p2p.entity';
import { P2pRepository } from './p2p.repository';
import { ResolveP2pHandler } from './resolve-p2p/resolve-p2p.handler';
import { CLOCK, Clock, P2P_INBOX, P2P_OUTBOX, systemClock } from './tokens';

export interface P2pModuleOptions {
  clock?: Clock;
  relay?: Partial<OutboxRelayServiceOptions>;
  /** The provider dispatcher: turn off its auto-start, poll faster, or replace the provider adapter. */
  dispatch?: Partial<P2pDispatcherOptions>;
}

@Module({})
export class P2pModule {
  static register(config: P2pConfig, opts: P2pModuleOptions = {}): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [P2pEntity],
      migrations: [Init1764200000001],
    };
    const dispatch: P2pDispatcherOptions = {
      ...DEFAULT_DISPATCHER_OPTIONS,
      instanceId: defaultInstanceId(),
      ...opts.dispatch,
    };
    return {
      module: P2pModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [CreateP2pHandler, GetP2pHandler, ProviderEventConsumer, ResolveP2pHandler, HealthController],
      providers: [
        P2pRepository,
        P2pDispatcher,
        OutboxRelayService,
        { provide: P2P_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
        { provide: P2P_OUTBOX, useValue: new Outbox(config.schema) },
        {
          provide: P2P_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
          inject: [DataSource],
        },
        { provide: P2P_DISPATCHER_OPTIONS, useValue: dispatch },
        { provide: P2P_PROVIDER, useValue: dispatch.provider ?? new SandboxProviderClient(config.sandboxProviderUrl) },
        {
          provide: P2P_DISPATCH_QUEUE,
          useFactory: (ds: DataSource) =>
            new DispatchQueue(ds, {
              schema: config.schema,
              table: 'provider_dispatches',
              idColumn: 'dispatch_id',
              referenceColumn: 'p2p_id',
              aggregateTable: 'transactions',
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
