import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { CardVault } from '@payments/card-vault';
import { HealthReportingModule, startRequestClient } from '@payments/messaging';
import { HealthModule, HealthRegistry } from '@payments/platform';
import { CheckoutController } from './checkout.controller';
import { CheckoutRequests } from './checkout-requests';
import { PageGate } from './page-gate';
import { PayoutPageController } from './payout-page.controller';
import { CARD_VAULT, CHECKOUT_CONFIG, CheckoutConfig, REQUEST_CLIENT } from './config';

/** Closes the vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

/**
 * The hosted pages: no database of their own; orders and methods over Kafka, cards into the vault.
 * Its readiness is its Kafka request client's (the vault's database is asked only when a card is typed).
 */
@Module({})
export class CheckoutModule {
  static register(config: CheckoutConfig): DynamicModule {
    return {
      module: CheckoutModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'checkout',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
      ],
      controllers: [CheckoutController, PayoutPageController],
      providers: [
        CardVaultCloser,
        PageGate,
        CheckoutRequests,
        { provide: CHECKOUT_CONFIG, useValue: config },
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
        {
          provide: REQUEST_CLIENT,
          useFactory: (health: HealthRegistry) =>
            startRequestClient(
              config.kafka,
              { requester: 'checkout', instanceId: config.instanceId },
              { timeoutMs: config.requestTimeoutMs, stallMs: config.health.stallMs, health },
            ),
          inject: [HealthRegistry],
        },
      ],
    };
  }
}
