import { Controller, Inject, Provider } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SANDBOX_B_PROVIDER_CODE } from '@payments/providers/sandbox-b';
import { CallbackSender } from '../callback-sender';
import { SANDBOX_CONFIG, SandboxConfig } from '../config';
import { SandboxController } from '../sandbox.controller';
import { SandboxPayments } from '../sandbox-payments';
import { AcquirerProfile } from './acquirer-profile';

const B_SENDER = Symbol('SANDBOX_B_SENDER');
const B_PAYMENTS = Symbol('SANDBOX_B_PAYMENTS');

/**
 * The second sandbox acquirer, `sandbox-b` (decision 323): the sandbox's own routes under
 * `/sandbox-b` (`POST /sandbox-b/payments`, …), with payments of its own, callbacks signed the
 * same way to callbacks-ingest's `/callbacks/sandbox-b`, and its own BIN profile.
 */
@ApiTags('sandbox-b')
@Controller(SANDBOX_B_PROVIDER_CODE)
export class SandboxBController extends SandboxController {
  constructor(
    @Inject(B_SENDER) sender: CallbackSender,
    @Inject(B_PAYMENTS) payments: SandboxPayments,
    @Inject(SANDBOX_CONFIG) config: SandboxConfig,
  ) {
    super(sender, payments, config.sandboxB.profile);
  }
}

/** The second acquirer's callback sender and payments: the first's classes with its own callback URL. */
export function sandboxBProviders(config: SandboxConfig): Provider[] {
  const sender = new CallbackSender({ ...config, callbacksUrl: config.sandboxB.callbacksUrl });
  return [
    { provide: B_SENDER, useValue: sender },
    { provide: B_PAYMENTS, useFactory: () => new SandboxPayments(sender, config) },
  ];
}

export type { AcquirerProfile };
