import { EnvReader } from '@payments/platform';
import { loadTransferConfig, TransferServiceConfig } from '@payments/transfers';

export type P2pConfig = TransferServiceConfig;

export function loadP2pConfig(env = new EnvReader()): P2pConfig {
  return loadTransferConfig(env, 'p2p', { schema: 'P2P_DB_SCHEMA', consumerGroup: 'P2P_CONSUMER_GROUP' });
}
