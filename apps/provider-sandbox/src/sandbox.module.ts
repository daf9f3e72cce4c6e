import { BankAppController } from './bank-app.controller';
import { DynamicModule, Module } from '@nestjs/common';
import { CallbackSender } from './callback-sender';
import { ClickAppController } from './click/click-app.controller';
import { ClickSimulatorController } from './click/click-simulator.controller';
import { SANDBOX_CONFIG, SandboxConfig } from './config';
import { PaymeCheckoutController } from './payme/payme-checkout.controller';
import { PaymeSimulatorController } from './payme/payme-simulator.controller';
import { SandboxController } from './sandbox.controller';
import { SandboxPayments } from './sandbox-payments';
import { ACQUIRER_PROFILE } from './acquirers/acquirer-profile';
import { SandboxBController, sandboxBProviders } from './acquirers/sandbox-b.controller';

@Module({})
export class SandboxModule {
  static register(config: SandboxConfig): DynamicModule {
    return {
      module: SandboxModule,
      controllers: [
        SandboxController,
        SandboxBController,
        BankAppController,
        ClickSimulatorController,
        ClickAppController,
        PaymeSimulatorController,
        PaymeCheckoutController,
      ],
      providers: [
        ClickSimulatorController,
        PaymeSimulatorController,
        CallbackSender,
        SandboxPayments,
        { provide: SANDBOX_CONFIG, useValue: config },
        { provide: ACQUIRER_PROFILE, useValue: config.profile },
        ...sandboxBProviders(config),
      ],
    };
  }
}
