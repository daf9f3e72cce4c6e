import { Provider } from '@nestjs/common';
import { OrdersConfig } from '../config';
import {
  ATTEMPT_DISPATCHER_OPTIONS,
  AttemptDispatcher,
  AttemptDispatcherOptions,
  DEFAULT_DISPATCHER_OPTIONS,
  defaultInstanceId,
} from './attempt-dispatcher.service';
import { PAYMENT_PROVIDER } from './payment-provider';
import { ProviderDispatchRepository } from './provider-dispatch.repository';
import { SandboxPaymentProvider } from './sandbox-payment.provider';

/** Everything the orders module needs to send payment attempts to the provider. */
export function dispatchAttemptProviders(
  config: OrdersConfig,
  opts: Partial<AttemptDispatcherOptions> = {},
): Provider[] {
  const options: AttemptDispatcherOptions = { ...DEFAULT_DISPATCHER_OPTIONS, instanceId: defaultInstanceId(), ...opts };
  return [
    ProviderDispatchRepository,
    AttemptDispatcher,
    { provide: ATTEMPT_DISPATCHER_OPTIONS, useValue: options },
    { provide: PAYMENT_PROVIDER, useValue: options.provider ?? new SandboxPaymentProvider(config.sandboxProviderUrl) },
  ];
}
