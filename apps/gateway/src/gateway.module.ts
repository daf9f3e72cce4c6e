import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { CardVault } from '@payments/card-vault';
import { EventsController } from './events/events.controller';
import { BalanceController } from './balance/balance.controller';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  HealthReportingModule,
  startRequestClient,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
} from '@payments/messaging';
import {
  FAILED_AUTH_THROTTLE,
  FailedAuthThrottle,
  HealthModule,
  HealthRegistry,
  openServiceDatabase,
  RateLimiter,
  serviceDataSourceOptions,
} from '@payments/platform';
import { MerchantAuthGuard } from './auth/merchant-auth.guard';
import { GATEWAY_CONFIG, GatewayConfig } from './config';
import { ShopSecretResealer } from './shops/shop-secret-resealer.service';
import { OrdersController } from './orders/orders.controller';
import { P2pController } from './p2p/p2p.controller';
import { PayoutMethodResolver } from './payouts/payout-method.resolver';
import { PayoutsController } from './payouts/payouts.controller';
import { MerchantMethodsController } from './methods/merchant-methods.controller';
import { StatusCodesController } from './status-codes/status-codes.controller';
import { ApiKeyEntity, CompanyEntity, ShopEntity } from '@payments/merchant-admin';
import { CARD_VAULT, GATEWAY_OUTBOX, RATE_LIMITER, REQUEST_CLIENT } from './tokens';
import {
  ApiKeyRepository,
  IdempotencyRepository,
  MERCHANT_ADMIN_CONFIG,
  MERCHANT_ADMIN_OUTBOX,
  PaymentLinks,
  ShopRepository,
  ShopSettingsPublisher,
} from '@payments/merchant-admin';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyPurgeService } from './idempotency/idempotency-purge.service';
import { GATEWAY_MIGRATIONS } from './migrations';

/** Closes the card vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

@Module({})
export class GatewayModule {
  static register(config: GatewayConfig): DynamicModule {
    const db = {
      url: config.databaseUrl,
      schema: config.schema,
      entities: [CompanyEntity, ShopEntity, ApiKeyEntity],
      migrations: GATEWAY_MIGRATIONS,
    };
    return {
      module: GatewayModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'gateway',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [
        OrdersController,
        MerchantMethodsController,
        StatusCodesController,
        PayoutsController,
        P2pController,
        EventsController,
        BalanceController,
      ],
      providers: [
        MerchantAuthGuard,
        ShopSettingsPublisher,
        ShopSecretResealer,
        PayoutMethodResolver,
        PaymentLinks,
        OutboxRelayService,
        CardVaultCloser,
        {
          provide: CARD_VAULT,
          useFactory: async () => {
            const vault = new CardVault(config.databaseUrl, config.cardVault, {
              warn: (line) => new Logger('CardVault').warn(line),
            });
            await vault.migrate();
            return vault;
          },
        },
        { provide: GATEWAY_OUTBOX, useValue: new Outbox(config.schema) },
        { provide: MERCHANT_ADMIN_OUTBOX, useExisting: GATEWAY_OUTBOX },
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
          } satisfies OutboxRelayServiceOptions,
        },
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: MERCHANT_ADMIN_CONFIG, useValue: config },
        ApiKeyRepository,
        ShopRepository,
        { provide: RATE_LIMITER, useValue: new RateLimiter(config.rateLimit.perSecond, config.rateLimit.burst) },
        {
          provide: FAILED_AUTH_THROTTLE,
          useFactory: () => new FailedAuthThrottle(config.authThrottle, new Logger('AuthThrottle')).start(),
        },
        IdempotencyRepository,
        IdempotencyPurgeService,
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        {
          provide: REQUEST_CLIENT,
          useFactory: (health: HealthRegistry) =>
            startRequestClient(
              config.kafka,
              { requester: 'gateway', instanceId: config.instanceId },
              { timeoutMs: config.requestTimeoutMs, stallMs: config.health.stallMs, health },
            ),
          inject: [HealthRegistry],
        },
      ],
    };
  }
}
