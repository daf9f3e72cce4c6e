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
import { OpsAuthGuard } from './auth/ops-auth.guard';
import { GATEWAY_CONFIG, GatewayConfig } from './config';
import { Init1763700000000 } from './migrations/1763700000000-init';
import { ShopSettings1764000000000 } from './migrations/1764000000000-shop-settings';
import { OpsSettingsController } from './ops/ops-settings.controller';
import { ShopSettingsPublisher } from './shops/shop-settings.publisher';
import { ShopSecretResealer } from './shops/shop-secret-resealer.service';
import { OpsShopsController } from './ops/ops-shops.controller';
import { OpsCallbacksController } from './ops/ops-callbacks.controller';
import { OpsTransfersController } from './ops/ops-transfers.controller';
import { OrdersController } from './orders/orders.controller';
import { P2pController } from './p2p/p2p.controller';
import { PayoutMethodResolver } from './payouts/payout-method.resolver';
import { PayoutsController } from './payouts/payouts.controller';
import { MerchantMethodsController } from './methods/merchant-methods.controller';
import { OpsPaymentMethodsController, OpsPayoutMethodsController } from './methods/ops-methods.controller';
import { StatusCodesController } from './status-codes/status-codes.controller';
import { ApiKeyEntity, CompanyEntity, ShopEntity } from './shops/shop.entity';
import { CARD_VAULT, GATEWAY_OUTBOX, RATE_LIMITER, REQUEST_CLIENT } from './tokens';
import { OpsCardsController } from './ops/ops-cards.controller';
import { OpsCallbackSecretController } from './ops/ops-callback-secret.controller';
import { ApiKeyRepository } from './auth/api-key.repository';
import { ShopRepository } from './shops/shop.repository';
import { IdempotencyAndKeyUse1764200000000 } from './migrations/1764200000000-idempotency-and-key-use';
import { PreviousCallbackSecret1764900000002 } from './migrations/1764900000002-previous-callback-secret';
import { PaymentLinks } from './orders/payment-links';
import { HostedIntegration1765200000001 } from './migrations/1765200000001-hosted-integration';
import { PayoutViaPaymentPage1765300000001 } from './migrations/1765300000001-payout-via-payment-page';
import { OpsApiKeysController } from './ops/ops-api-keys.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyPurgeService } from './idempotency/idempotency-purge.service';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { Reconciliation1764317400000 } from './migrations/1764317400000-reconciliation';
import { OpsReconciliationController } from './ops/ops-reconciliation.controller';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { OperatorsAndAudit1765100000000 } from './migrations/1765100000000-operators-and-audit';
import { OpsOperatorsController } from './ops/ops-operators.controller';
import { OperatorRepository } from './operators/operator.repository';
import { AuditRepository } from './operators/audit.repository';
import { AuditInterceptor } from './operators/audit.interceptor';
import { ConsoleSessions1765100000001 } from './migrations/1765100000001-console-sessions';
import { ConsoleController } from './console/console.controller';
import { ConsoleSessionRepository } from './console/console-session.repository';
import { ConsoleSessionToken1765300000101 } from './migrations/1765300000101-console-session-token';
import { ConsoleSessionIdle1765300000102 } from './migrations/1765300000102-console-session-idle';
import { IdempotencyCardTokens1765400000001 } from './migrations/1765400000001-idempotency-card-tokens';
import { OpsOverviewController } from './ops/ops-overview.controller';
import { OverviewService } from './overview/overview.service';
import { ServiceHealthCollector } from './overview/service-health.collector';
import { DeadLetters1765100000003 } from './migrations/1765100000003-dead-letters';
import { OpsDeadLettersController } from './ops/ops-dead-letters.controller';
import { DeadLetterRepository } from './dead-letters/dead-letter.repository';
import { DeadLetterCollector } from './dead-letters/dead-letter-collector.service';

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
      migrations: [
        Init1763700000000,
        ShopSettings1764000000000,
        IdempotencyAndKeyUse1764200000000,
        Reconciliation1764317400000,
        PreviousCallbackSecret1764900000002,
        OperatorsAndAudit1765100000000,
        ConsoleSessions1765100000001,
        DeadLetters1765100000003,
        HostedIntegration1765200000001,
        PayoutViaPaymentPage1765300000001,
        ConsoleSessionToken1765300000101,
        ConsoleSessionIdle1765300000102,
        IdempotencyCardTokens1765400000001,
      ],
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
        OpsShopsController,
        OpsSettingsController,
        MerchantMethodsController,
        OpsPaymentMethodsController,
        OpsPayoutMethodsController,
        StatusCodesController,
        OpsApiKeysController,
        OpsCallbacksController,
        PayoutsController,
        P2pController,
        EventsController,
        BalanceController,
        OpsTransfersController,
        OpsReconciliationController,
        OpsCardsController,
        OpsCallbackSecretController,
        OpsOperatorsController,
        OpsOverviewController,
        OpsDeadLettersController,
        ConsoleController,
      ],
      providers: [
        MerchantAuthGuard,
        OpsAuthGuard,
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
        ApiKeyRepository,
        ShopRepository,
        { provide: RATE_LIMITER, useValue: new RateLimiter(config.rateLimit.perSecond, config.rateLimit.burst) },
        {
          provide: FAILED_AUTH_THROTTLE,
          useFactory: () => new FailedAuthThrottle(config.authThrottle, new Logger('AuthThrottle')).start(),
        },
        IdempotencyRepository,
        IdempotencyPurgeService,
        ReconciliationService,
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        OperatorRepository,
        AuditRepository,
        ConsoleSessionRepository,
        OverviewService,
        ServiceHealthCollector,
        DeadLetterRepository,
        DeadLetterCollector,
        { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
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
