import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';

export interface LedgerConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
  /** How often the settlement sweep looks for credits whose settlement delay has passed. */
  settlementSweepMs: number;
  /** Credits settled per sweep transaction. */
  settlementBatch: number;
  /** How often the orphan sweep looks for holds whose payout or refund never came to be; decision 277. */
  orphanSweepMs: number;
  /** How old an unconfirmed hold must be before the orphan sweep voids it. */
  orphanHoldAfterMs: number;
}

export function loadLedgerConfig(env = new EnvReader()): LedgerConfig {
  const config: LedgerConfig = {
    ...readCommonConfig(env, 'ledger'),
    schema: env.string('LEDGER_DB_SCHEMA', 'ledger'),
    consumerGroup: env.string('LEDGER_CONSUMER_GROUP', 'ledger'),
    settlementSweepMs: env.int('LEDGER_SETTLEMENT_SWEEP_MS', 5000, { min: 100, max: 3_600_000 }),
    settlementBatch: env.int('LEDGER_SETTLEMENT_BATCH', 200, { min: 1, max: 10_000 }),
    orphanSweepMs: env.int('LEDGER_ORPHAN_SWEEP_MS', 60_000, { min: 100, max: 3_600_000 }),
    orphanHoldAfterMs: env.int('LEDGER_ORPHAN_HOLD_AFTER_MS', 900_000, { min: 1000, max: 86_400_000 }),
  };
  env.done('ledger');
  return config;
}
