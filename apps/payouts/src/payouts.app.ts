import {
  RunningTransferService,
  startTransferService,
  TransferDispatcher,
  TransferModuleOptions,
} from '@payments/transfers';
import { PayoutsConfig } from './config';
import { payoutKind } from './payout.kind';

export type PayoutsModuleOptions = TransferModuleOptions;
export type RunningPayouts = RunningTransferService;
export type PayoutDispatcher = TransferDispatcher;

/** Starts the payouts service: migrations, the outbox relay, the dispatcher, the Kafka consumers and /health. */
export function startPayouts(
  config: PayoutsConfig,
  httpPort: number,
  opts: PayoutsModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningPayouts> {
  return startTransferService(payoutKind, config, httpPort, opts, host);
}
