import { Inject, Injectable, Logger, OnApplicationShutdown, Provider } from '@nestjs/common';
import { CardVault } from '@payments/card-vault';
import { OrdersConfig } from '../config';
import { ORDERS_CARD_VAULT } from '../tokens';
import {
  ATTEMPT_DISPATCHER_OPTIONS,
  AttemptDispatcher,
  AttemptDispatcherOptions,
  DEFAULT_DISPATCHER_OPTIONS,
  defaultInstanceId,
} from './attempt-dispatcher.service';
import { PAYMENT_PROVIDER, PAYMENT_PROVIDERS, PaymentProvider } from './payment-provider';
import { SANDBOX_B_PROVIDER_CODE } from '@payments/providers/sandbox-b';
import { ProviderDispatchRepository } from './provider-dispatch.repository';
import { SandboxPaymentProvider } from './sandbox-payment.provider';

/** Closes the vault's own connection pool with the application. */
@Injectable()
class CardVaultCloser implements OnApplicationShutdown {
  constructor(@Inject(ORDERS_CARD_VAULT) private readonly vault: CardVault) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vault.close();
  }
}

/** Everything the orders module needs to send payment attempts to the provider. */
export function dispatchAttemptProviders(
  config: OrdersConfig,
  opts: Partial<AttemptDispatcherOptions> = {},
): Provider[] {
  const options: AttemptDispatcherOptions = { ...DEFAULT_DISPATCHER_OPTIONS, instanceId: defaultInstanceId(), ...opts };
  const main = options.provider ?? new SandboxPaymentProvider(config.sandboxProviderUrl);
  // The routes' other providers (decision 322): the second sandbox acquirer, and a test's own.
  const adapters = new Map<string, PaymentProvider>(
    [
      new SandboxPaymentProvider(config.sandboxBProviderUrl, SANDBOX_B_PROVIDER_CODE),
      ...(options.providers ?? []),
      main,
    ].map((p) => [p.code, p]),
  );
  return [
    ProviderDispatchRepository,
    AttemptDispatcher,
    CardVaultCloser,
    {
      provide: ORDERS_CARD_VAULT,
      useFactory: async () => {
        const vault = new CardVault(config.databaseUrl, config.cardVault, {
          poolSize: 2,
          warn: (line) => new Logger('CardVault').warn(line),
        });
        await vault.migrate();
        return vault;
      },
    },
    { provide: ATTEMPT_DISPATCHER_OPTIONS, useValue: options },
    { provide: PAYMENT_PROVIDER, useValue: main },
    { provide: PAYMENT_PROVIDERS, useValue: adapters },
  ];
}
