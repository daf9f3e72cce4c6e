import { CardVaultConfig, readCardVaultConfig } from '@payments/card-vault';
import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';
import { ProviderConfig, readProviderConfig } from '@payments/provider-dispatch';

export interface TransferServiceConfig extends CommonConfig, ProviderConfig {
  schema: string;
  consumerGroup: string;
  /** The card vault's keys: the dispatcher detokenizes a card just before it sends. */
  cardVault: CardVaultConfig;
  /** How long a payout's creation waits for the ledger's hold (a transfer kind with funds). */
  ledgerTimeoutMs: number;
  /**
   * Whether a transfer kind with funds asks the ledger before it accepts (LEDGER_HOLDS, default
   * true). Off only where no ledger runs: test stacks and tools that start a system without it.
   */
  ledgerHolds: boolean;
}

/** Reads a transfer service's configuration; the service's name is the default schema and consumer group. */
export function loadTransferConfig(
  env: EnvReader,
  service: string,
  names: { schema: string; consumerGroup: string },
): TransferServiceConfig {
  const config: TransferServiceConfig = {
    ...readCommonConfig(env, service),
    schema: env.string(names.schema, service),
    consumerGroup: env.string(names.consumerGroup, service),
    ...readProviderConfig(env),
    // Opens a card just before a provider call; tokenizes only to move the numbers of a database
    // from before the vault (PayeeCards, PartyCards), given the key for that once (decision 259).
    cardVault: readCardVaultConfig(env, 'upgrade-only'),
    ledgerTimeoutMs: env.int('LEDGER_REQUEST_TIMEOUT_MS', 4000, { min: 100, max: 60_000 }),
    ledgerHolds: env.bool('LEDGER_HOLDS', true),
  };
  env.done(service);
  return config;
}
