import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { CardVault } from '@payments/card-vault';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  HealthReportingModule,
  Inbox,
  KafkaRequestClient,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
  startRequestClient,
} from '@payments/messaging';
import {
  CLOCK,
  Clock,
  HealthModule,
  HealthRegistry,
  openServiceDatabase,
  serviceDataSourceOptions,
  systemClock,
} from '@payments/platform';
import { DEFAULT_DISPATCHER_OPTIONS, defaultInstanceId, DispatchQueue } from '@payments/provider-dispatch';
import { clientOf } from '@payments/providers/registry';
import { SANDBOX_PROVIDER_CODE } from '@payments/providers/sandbox';
import { CreateTransferHandler } from './create-transfer.handler';
import { GetTransferHandler } from './get-transfer.handler';
import { ProviderEventConsumer } from './provider-event.consumer';
import { ResolveTransferHandler } from './resolve-transfer.handler';
import type { TransferServiceConfig } from './transfer-config';
import { TransferDispatcher, TransferDispatcherOptions } from './transfer-dispatcher.service';
import type { TransferKindSpec } from './transfer-kind';
import { transferController } from './transfer.controller';
import { TransferRepository } from './transfer.repository';
import { TransferWrites } from './transfer-writes';
import {
  TRANSFER_CARD_VAULT,
  TRANSFER_CONFIG,
  TRANSFER_DISPATCH_QUEUE,
  TRANSFER_DISPATCHER_OPTIONS,
  TRANSFER_INBOX,
  TRANSFER_KIND,
  TRANSFER_OUTBOX,
  TRANSFER_PROVIDER,
  TRANSFER_FUNDS,
  TRANSFER_REQUEST_CLIENT,
} from './tokens';
import { LedgerFunds, NO_FUNDS } from './transfer-funds';

export interface TransferModuleOptions {
  clock?: Clock;
  relay?: Partial<OutboxRelayServiceOptions>;
  /** The provider dispatcher: turn off its auto-start, poll faster, or replace the provider adapter. */
  dispatch?: Partial<TransferDispatcherOptions>;
}

export interface TransferModuleRegistration {
  kind: TransferKindSpec<any>;
  config: TransferServiceConfig;
  options?: TransferModuleOptions;
}

/** Closes the vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(TRANSFER_CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

/** One transfer service (payouts, P2P): its database, handlers, dispatcher and outbox relay. */
@Module({})
export class TransferModule {
  static register({ kind, config, options = {} }: TransferModuleRegistration): DynamicModule {
    const vault = new CardVault(config.databaseUrl, config.cardVault, {
      warn: (line) => new Logger('CardVault').warn(line),
    });
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [kind.entity],
      migrations: [...kind.migrations, ...(kind.cardMigrations?.(vault) ?? [])],
    };
    const dispatch: TransferDispatcherOptions = {
      ...DEFAULT_DISPATCHER_OPTIONS,
      instanceId: defaultInstanceId(),
      ...options.dispatch,
    };
    return {
      module: TransferModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: kind.service,
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          // The vault's table first: the card migrations move existing numbers into it.
          dataSourceFactory: async () => {
            await vault.migrate();
            return openServiceDatabase(db);
          },
        }),
      ],
      controllers: [transferController(kind), ...(kind.extraControllers ?? [])],
      providers: [
        TransferRepository,
        TransferWrites,
        CreateTransferHandler,
        GetTransferHandler,
        ResolveTransferHandler,
        ProviderEventConsumer,
        TransferDispatcher,
        OutboxRelayService,
        CardVaultCloser,
        ...(kind.extraProviders ?? []),
        { provide: TRANSFER_CARD_VAULT, useValue: vault },
        { provide: TRANSFER_KIND, useValue: kind },
        { provide: TRANSFER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: options.clock ?? systemClock },
        { provide: TRANSFER_OUTBOX, useValue: new Outbox(config.schema) },
        {
          provide: TRANSFER_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
          inject: [DataSource],
        },
        { provide: TRANSFER_DISPATCHER_OPTIONS, useValue: dispatch },
        {
          provide: TRANSFER_REQUEST_CLIENT,
          useFactory: (health: HealthRegistry) =>
            kind.funds && config.ledgerHolds
              ? startRequestClient(
                  config.kafka,
                  { requester: kind.funds.requester, instanceId: config.instanceId },
                  { timeoutMs: config.ledgerTimeoutMs, stallMs: config.health.stallMs, health },
                )
              : null,
          inject: [HealthRegistry],
        },
        {
          provide: TRANSFER_FUNDS,
          useFactory: (client: KafkaRequestClient | null) =>
            client && kind.funds ? new LedgerFunds(client, kind.funds) : NO_FUNDS,
          inject: [TRANSFER_REQUEST_CLIENT],
        },
        {
          provide: TRANSFER_PROVIDER,
          useValue: dispatch.provider ?? clientOf(SANDBOX_PROVIDER_CODE, config.sandboxProviderUrl),
        },
        {
          provide: TRANSFER_DISPATCH_QUEUE,
          useFactory: (ds: DataSource) =>
            new DispatchQueue(ds, {
              schema: config.schema,
              table: 'provider_dispatches',
              idColumn: 'dispatch_id',
              referenceColumn: kind.dispatch.referenceColumn,
              aggregateTable: ds.getMetadata(kind.entity).tableName,
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
            stallMs: config.health.stallMs,
            ...options.relay,
          } satisfies OutboxRelayServiceOptions,
        },
      ],
    };
  }
}
