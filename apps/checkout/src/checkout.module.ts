import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { CardVault } from '@payments/card-vault';
import { KafkaRequestClient } from '@payments/messaging';
import { CheckoutController } from './checkout.controller';
import { CARD_VAULT, CHECKOUT_CONFIG, CheckoutConfig, REQUEST_CLIENT } from './config';

/** Closes the vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

/** The hosted pages: no database of their own; orders and methods over Kafka, cards into the vault. */
@Module({})
export class CheckoutModule {
  static register(config: CheckoutConfig): DynamicModule {
    return {
      module: CheckoutModule,
      controllers: [CheckoutController],
      providers: [
        CardVaultCloser,
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
          useFactory: async () => {
            const client = new KafkaRequestClient(config.kafka, config.instanceId, config.requestTimeoutMs);
            await client.start();
            return client;
          },
        },
      ],
    };
  }
}
