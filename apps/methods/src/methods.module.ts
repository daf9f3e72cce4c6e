import { HealthReportingModule } from '@payments/messaging';
import { DataEntryMode1765200000002 } from './migrations/1765200000002-data-entry-mode';
import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HealthModule, openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import { MethodsConfig } from './config';
import { ListMethodsHandler } from './list-methods/list-methods.handler';
import { ManageMethodsHandler } from './manage-methods/manage-methods.handler';
import { PaymentMethodEntity, PayoutMethodEntity } from './method.entity';
import { MethodRepository } from './method.repository';
import { Init1764200000000 } from './migrations/1764200000000-init';
import { PayoutFieldsHandler } from './payout-fields/payout-fields.handler';
import { CLOCK, Clock, METHODS_CONFIG, systemClock } from './tokens';

export interface MethodsModuleOptions {
  clock?: Clock;
}

@Module({})
export class MethodsModule {
  static register(config: MethodsConfig, opts: MethodsModuleOptions = {}): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [PaymentMethodEntity, PayoutMethodEntity],
      migrations: [Init1764200000000, DataEntryMode1765200000002],
    };
    return {
      module: MethodsModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'methods',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [ListMethodsHandler, PayoutFieldsHandler, ManageMethodsHandler],
      providers: [
        MethodRepository,
        { provide: METHODS_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
      ],
    };
  }
}
