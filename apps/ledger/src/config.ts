import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';
import { parseSandboxRates, SandboxRate } from './convert-rates/sandbox-rates';

export interface LedgerConfig extends CommonConfig {
  schema: string;
  /**
   * The group of the commands it answers (holds, balances, operators' settings), fetched at once.
   * Also the key of its inbox, whichever group reads the events (decision 352).
   */
  consumerGroup: string;
  /** The group of the order, payout and P2P events it books (decision 352). */
  eventsConsumerGroup: string;
  /**
   * How long a fetch of those events may wait for more (decision 352): fewer, larger batches, each
   * one booking transaction; a credit is booked up to this much later. 0: the default fetch, at once.
   */
  eventsFetchWaitMs: number;
  /** How often the settlement sweep looks for credits whose settlement delay has passed. */
  settlementSweepMs: number;
  /** Credits settled per sweep transaction. */
  settlementBatch: number;
  /** How often the orphan sweep looks for holds whose payout or refund never came to be; decision 277. */
  orphanSweepMs: number;
  /** How old an unconfirmed hold must be before the orphan sweep voids it. */
  orphanHoldAfterMs: number;
  /**
   * How long a refused hold's answer is kept for the command that asked (decision 356): longer than
   * the commands topics can keep a command (Kafka deletes whole segments: its default retention of
   * 7 days plus a segment's 7 days). The orphan sweep purges older ones.
   */
  holdRefusalKeepMs: number;
  /** How often the conversion sweep converts the credits waiting for a rate that now has one; decision 304. */
  rateConversionMs: number;
  /** The sandbox rates feed (decision 305): the pairs it keeps in force, none (off) unless set. */
  sandboxRates: SandboxRate[];
  /** How often the sandbox feed refreshes its rates. */
  sandboxRatesMs: number;
  /** How often the ledger checks its books (decision 306); 0 turns the check off. */
  booksCheckMs: number;
}

/**
 * The sandbox rates feed (decision 305), refused unless LEDGER_SANDBOX_ENVIRONMENT=true says this
 * is a local or sandbox system: a production ledger must never book at made-up rates because a
 * variable leaked into its environment.
 */
function readSandboxRates(env: EnvReader): SandboxRate[] {
  const sandbox = env.bool('LEDGER_SANDBOX_ENVIRONMENT', false);
  if (!env.optionalString('LEDGER_SANDBOX_RATES')) return [];
  if (!sandbox) {
    env.fail(
      'LEDGER_SANDBOX_RATES needs LEDGER_SANDBOX_ENVIRONMENT=true: the sandbox rates feed runs only in a local or sandbox system',
    );
    return [];
  }
  return env.parsed('LEDGER_SANDBOX_RATES', parseSandboxRates) ?? [];
}

export function loadLedgerConfig(env = new EnvReader()): LedgerConfig {
  const consumerGroup = env.string('LEDGER_CONSUMER_GROUP', 'ledger');
  const config: LedgerConfig = {
    ...readCommonConfig(env, 'ledger'),
    schema: env.string('LEDGER_DB_SCHEMA', 'ledger'),
    consumerGroup,
    eventsConsumerGroup: env.string('LEDGER_EVENTS_CONSUMER_GROUP', `${consumerGroup}-events`),
    eventsFetchWaitMs: env.int('LEDGER_EVENTS_FETCH_WAIT_MS', 250, { min: 0, max: 5000 }),
    settlementSweepMs: env.int('LEDGER_SETTLEMENT_SWEEP_MS', 5000, { min: 100, max: 3_600_000 }),
    settlementBatch: env.int('LEDGER_SETTLEMENT_BATCH', 200, { min: 1, max: 10_000 }),
    orphanSweepMs: env.int('LEDGER_ORPHAN_SWEEP_MS', 60_000, { min: 100, max: 3_600_000 }),
    orphanHoldAfterMs: env.int('LEDGER_ORPHAN_HOLD_AFTER_MS', 900_000, { min: 1000, max: 86_400_000 }),
    holdRefusalKeepMs: env.int('LEDGER_HOLD_REFUSAL_KEEP_MS', 15 * 86_400_000, {
      min: 1000,
      max: 366 * 86_400_000,
    }),
    rateConversionMs: env.int('LEDGER_RATE_CONVERSION_MS', 10_000, { min: 100, max: 3_600_000 }),
    sandboxRates: readSandboxRates(env),
    sandboxRatesMs: env.int('LEDGER_SANDBOX_RATES_MS', 60_000, { min: 100, max: 86_400_000 }),
    booksCheckMs: env.int('LEDGER_BOOKS_CHECK_MS', 60_000, { min: 0, max: 86_400_000 }),
  };
  env.done('ledger');
  return config;
}
