import {
  RunningTransferService,
  startTransferService,
  TransferDispatcher,
  TransferModuleOptions,
} from '@payments/transfers';
import { P2pConfig } from './config';
import { p2pKind } from './p2p.kind';

export type P2pModuleOptions = TransferModuleOptions;
export type RunningP2p = RunningTransferService;
export type P2pDispatcher = TransferDispatcher;

/** Starts the p2p service: migrations, the outbox relay, the dispatcher, the Kafka consumers and /health. */
export function startP2p(
  config: P2pConfig,
  httpPort: number,
  opts: P2pModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningP2p> {
  return startTransferService(p2pKind, config, httpPort, opts, host);
}
