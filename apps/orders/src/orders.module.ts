import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  HealthReportingModule,
  Inbox,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
  startRequestClient,
} from '@payments/messaging';

import { ProviderEventConsumer } from './apply-provider-event/provider-event.consumer';
import { ORDERS_CONFIG, OrdersConfig } from './config';
import { CreateOrderHandler } from './create-order/create-order.handler';
import { GetOrderHandler } from './get-order/get-order.handler';
import { HealthModule, HealthRegistry, openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import type { AttemptDispatcherOptions } from './dispatch-attempt/attempt-dispatcher.service';
import { dispatchAttemptProviders } from './dispatch-attempt/dispatch-attempt.providers';
import { CancelOrderHandler } from './cancel-order/cancel-order.handler';
import { CheckoutHandler } from './checkout/checkout.handler';
import { RefundOrderHandler } from './refund-order/refund-order.handler';
import { ProcessingTimeoutSweeper } from './processing-timeout/processing-timeout.sweeper';
import { ResolveOrderHandler } from './resolve-order/resolve-order.handler';
import { ShopSettingsConsumer } from './shop-settings/shop-settings.consumer';
import { ShopSettingsRepository } from './shop-settings/shop-settings.repository';
import { RouteOpsHandler } from './routing/route-ops.handler';
import { RouteRepository } from './routing/route.repository';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';
import { OrderRepository } from './order.repository';
import { ProviderEventFoldRepository } from './apply-provider-event/provider-event-fold.repository';
import { LedgerRefundFunds, NO_REFUND_FUNDS } from './refund-order/refund-funds';
import { CLOCK, Clock, ORDERS_INBOX, ORDERS_OUTBOX, ORDERS_REFUND_FUNDS, systemClock } from './tokens';
import { ORDERS_MIGRATIONS } from './migrations';

export interface OrdersModuleOptions {
  clock?: Clock;
  relay?: Partial<OutboxRelayServiceOptions>;
  /** The provider dispatcher: turn off its auto-start, poll faster, or replace the provider adapter. */
  dispatch?: Partial<AttemptDispatcherOptions>;
}

@Module({})
export class OrdersModule {
  static register(config: OrdersConfig, opts: OrdersModuleOptions = {}): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [OrderEntity, PaymentAttemptEntity],
      migrations: ORDERS_MIGRATIONS,
    };
    return {
      module: OrdersModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'orders',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [
        CreateOrderHandler,
        GetOrderHandler,
        CancelOrderHandler,
        RefundOrderHandler,
        ResolveOrderHandler,
        CheckoutHandler,
        ProviderEventConsumer,
        ShopSettingsConsumer,
        RouteOpsHandler,
      ],
      providers: [
        OrderRepository,
        ProviderEventFoldRepository,
        ShopSettingsRepository,
        RouteRepository,
        ProcessingTimeoutSweeper,
        OutboxRelayService,
        ...dispatchAttemptProviders(config, opts.dispatch),
        { provide: ORDERS_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
        { provide: ORDERS_OUTBOX, useValue: new Outbox(config.schema) },
        {
          provide: ORDERS_REFUND_FUNDS,
          useFactory: async (health: HealthRegistry) =>
            config.ledgerHolds
              ? new LedgerRefundFunds(
                  await startRequestClient(
                    config.kafka,
                    { requester: 'orders', instanceId: config.instanceId },
                    { timeoutMs: config.ledgerTimeoutMs, stallMs: config.health.stallMs, health },
                  ),
                )
              : NO_REFUND_FUNDS,
          inject: [HealthRegistry],
        },
        {
          provide: ORDERS_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
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
            ...opts.relay,
          } satisfies OutboxRelayServiceOptions,
        },
      ],
    };
  }
}
