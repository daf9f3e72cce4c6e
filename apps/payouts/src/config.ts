import { EnvReader } from '@payments/platform';
import { loadTransferConfig, TransferServiceConfig } from '@payments/transfers';

export type PayoutsConfig = TransferServiceConfig;

export function loadPayoutsConfig(env = new EnvReader()): PayoutsConfig {
  return loadTransferConfig(env, 'payouts', { schema: 'PAYOUTS_DB_SCHEMA', consumerGroup: 'PAYOUTS_CONSUMER_GROUP' });
}
