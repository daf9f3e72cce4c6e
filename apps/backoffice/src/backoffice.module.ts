import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CardVault } from '@payments/card-vault';
import {
  ApiKeyRepository,
  IdempotencyRepository,
  MERCHANT_ADMIN_CONFIG,
  MERCHANT_ADMIN_OUTBOX,
  ShopRepository,
  ShopSettingsPublisher,
} from '@payments/merchant-admin';
import {
  HealthReportingModule,
  Outbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
  startRequestClient,
} from '@payments/messaging';
import { FAILED_AUTH_THROTTLE, FailedAuthThrottle, HealthModule, HealthRegistry } from '@payments/platform';
import { OpsAuthGuard } from './auth/ops-auth.guard';
import { backofficeDataSourceOptions, openBackofficeDatabase } from './backoffice.database';
import { BACKOFFICE_CONFIG, BackofficeConfig, merchantAdminConfigOf } from './config';
import { ConsoleSessionRepository } from './console/console-session.repository';
import { ConsoleBooksController } from './console/console-books.controller';
import { ConsoleCallbacksController } from './console/console-callbacks.controller';
import { ConsoleDeadLettersController } from './console/console-dead-letters.controller';
import { ConsoleOrdersController } from './console/console-orders.controller';
import { ConsoleProvidersController } from './console/console-providers.controller';
import { ConsolePageService } from './console/console-page.service';
import { ConsoleTransfersController } from './console/console-transfers.controller';
import { ConsoleController } from './console/console.controller';
import { DeadLetterCollector } from './dead-letters/dead-letter-collector.service';
import { DeadLetterRepository } from './dead-letters/dead-letter.repository';
import { OpsLedgerBooksController } from './ledger/ops-ledger-books.controller';
import { OpsAwaitingCreditsController } from './ledger/ops-awaiting-credits.controller';
import { OpsLedgerSettingsController } from './ledger/ops-ledger-settings.controller';
import { OpsRoutesController } from './routing/ops-routes.controller';
import { OpsProviderAccountsController } from './provider-accounts/ops-provider-accounts.controller';
import { OpsPaymentMethodsController, OpsPayoutMethodsController } from './methods/ops-methods.controller';
import { AuditInterceptor } from './operators/audit.interceptor';
import { AuditRepository } from './operators/audit.repository';
import { OperatorRepository } from './operators/operator.repository';
import { OpsApiKeysController } from './ops/ops-api-keys.controller';
import { OpsCallbackSecretController } from './ops/ops-callback-secret.controller';
import { OpsCallbacksController } from './ops/ops-callbacks.controller';
import { OpsCardsController } from './ops/ops-cards.controller';
import { OpsDeadLettersController } from './ops/ops-dead-letters.controller';
import { OpsOperatorsController } from './ops/ops-operators.controller';
import { OpsOverviewController } from './ops/ops-overview.controller';
import { OpsReconciliationController } from './ops/ops-reconciliation.controller';
import { OpsSettingsController } from './ops/ops-settings.controller';
import { OpsShopsController } from './ops/ops-shops.controller';
import { OpsTransfersController } from './ops/ops-transfers.controller';
import { OverviewService } from './overview/overview.service';
import { ProvidersService } from './overview/providers.service';
import { OpsProvidersController } from './ops/ops-providers.controller';
import { ServiceHealthCollector } from './overview/service-health.collector';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { BACKOFFICE_OUTBOX, CARD_VAULT, REQUEST_CLIENT } from './tokens';

/** Closes the card vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

/** The operators' service (ARCHITECTURE §9): the operator API, the console and their jobs. */
@Module({})
export class BackofficeModule {
  static register(config: BackofficeConfig): DynamicModule {
    return {
      module: BackofficeModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'backoffice',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => backofficeDataSourceOptions(config),
          dataSourceFactory: () => openBackofficeDatabase(config),
        }),
      ],
      controllers: [
        OpsShopsController,
        OpsSettingsController,
        OpsPaymentMethodsController,
        OpsPayoutMethodsController,
        OpsLedgerSettingsController,
        OpsRoutesController,
        OpsLedgerBooksController,
        OpsAwaitingCreditsController,
        OpsProvidersController,
        OpsApiKeysController,
        OpsCallbacksController,
        OpsTransfersController,
        OpsReconciliationController,
        OpsCardsController,
        OpsCallbackSecretController,
        OpsProviderAccountsController,
        OpsOperatorsController,
        OpsOverviewController,
        OpsDeadLettersController,
        ConsoleController,
        ConsoleOrdersController,
        ConsoleTransfersController,
        ConsoleCallbacksController,
        ConsoleDeadLettersController,
        ConsoleBooksController,
        ConsoleProvidersController,
      ],
      providers: [
        OpsAuthGuard,
        ShopSettingsPublisher,
        OutboxRelayService,
        CardVaultCloser,
        {
          provide: CARD_VAULT,
          useFactory: () =>
            new CardVault(config.databaseUrl, config.cardVault, {
              warn: (line) => new Logger('CardVault').warn(line),
            }),
        },
        { provide: BACKOFFICE_OUTBOX, useValue: new Outbox(config.schema) },
        // shops.settings snapshots go out through the gateway's outbox, its relay publishes them (decision 300).
        { provide: MERCHANT_ADMIN_OUTBOX, useValue: new Outbox(config.gatewaySchema) },
        {
          provide: OUTBOX_RELAY_OPTIONS,
          useValue: {
            databaseUrl: config.databaseUrl,
            schema: config.schema,
            kafka: config.kafka,
            failpoint: config.failpoint,
            stallMs: config.health.stallMs,
            affectsReadiness: false,
          } satisfies OutboxRelayServiceOptions,
        },
        { provide: BACKOFFICE_CONFIG, useValue: config },
        { provide: MERCHANT_ADMIN_CONFIG, useValue: merchantAdminConfigOf(config) },
        ApiKeyRepository,
        ShopRepository,
        IdempotencyRepository,
        {
          provide: FAILED_AUTH_THROTTLE,
          useFactory: () => new FailedAuthThrottle(config.authThrottle, new Logger('AuthThrottle')).start(),
        },
        ReconciliationService,
        OperatorRepository,
        AuditRepository,
        ConsoleSessionRepository,
        ConsolePageService,
        OverviewService,
        ProvidersService,
        ServiceHealthCollector,
        DeadLetterRepository,
        DeadLetterCollector,
        { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
        {
          provide: REQUEST_CLIENT,
          useFactory: (health: HealthRegistry) =>
            startRequestClient(
              config.kafka,
              { requester: 'backoffice', instanceId: config.instanceId },
              { timeoutMs: config.requestTimeoutMs, stallMs: config.health.stallMs, health },
            ),
          inject: [HealthRegistry],
        },
      ],
    };
  }
}
