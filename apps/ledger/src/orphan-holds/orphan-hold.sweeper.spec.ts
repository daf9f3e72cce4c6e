import { DataSource, EntityManager } from 'typeorm';
import { metricsRegistry } from '@payments/platform';
import { LedgerConfig } from '../config';
import { HoldRepository } from '../hold-payouts/hold.repository';
import { PayoutHolds } from '../hold-payouts/payout-holds';
import { RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { RefundHolds } from '../hold-refunds/refund-holds';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { OrphanHoldSweeper } from './orphan-hold.sweeper';

const T0 = Date.parse('2026-11-29T04:00:00Z');
/** The gauge's samples: topic → Unix seconds. */
const moments = async (): Promise<Record<string, number>> => {
  const metric = await metricsRegistry.getSingleMetric('payments_ledger_events_read_through_timestamp_seconds')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.topic), v.value]));
};
const seconds = (ms: number) => ms / 1000;

/** A sweeper on fakes: no hold to take, no refusal to purge; the clock and the answers are the test's. */
function sweeperAt(clock: { ms: number }, answers: (Date | null)[]): OrphanHoldSweeper {
  const none = { takeOrphan: async () => null };
  const ds = { transaction: async (fn: (m: EntityManager) => Promise<void>) => fn({} as EntityManager) };
  return new OrphanHoldSweeper(
    ds as unknown as DataSource,
    none as unknown as HoldRepository,
    {} as PayoutHolds,
    none as unknown as RefundHoldRepository,
    {} as RefundHolds,
    { purge: async () => 0 } as unknown as HoldRefusalRepository,
    // An interval the test never reaches: it runs the sweeps itself.
    { orphanSweepMs: 3_600_000, orphanHoldAfterMs: 900_000, holdRefusalKeepMs: 8 * 86_400_000 } as LedgerConfig,
    { now: () => new Date(clock.ms) },
    { through: async () => answers.shift() ?? null, close: async () => undefined },
  );
}

describe("the orphan sweep's read-through moment (decision 357)", () => {
  it('when the sweep can tell, then the gauge says the moment read through; before that nothing, and while it cannot, the last moment found', async () => {
    const clock = { ms: T0 };
    // Per run: payouts.events, then orders.events.
    const sweeper = sweeperAt(clock, [
      null,
      null,
      new Date(T0 + 50_000),
      new Date(T0 + 40_000),
      null,
      new Date(T0 + 30_000), // an answer older than one given before moves nothing back
    ]);
    sweeper.onApplicationBootstrap();
    sweeper.onApplicationBootstrap(); // Nest calls it once per part of the app
    try {
      // Not its start: an instance that cannot tell says nothing, so it holds no alert down.
      expect(await moments()).toEqual({});
      clock.ms = T0 + 60_000;
      await sweeper.sweep();
      expect(await moments()).toEqual({});
      clock.ms = T0 + 120_000;
      await sweeper.sweep();
      expect(await moments()).toEqual({
        'payouts.events': seconds(T0 + 50_000),
        'orders.events': seconds(T0 + 40_000),
      });
      clock.ms = T0 + 300_000;
      await sweeper.sweep();
      expect(await moments()).toEqual({
        'payouts.events': seconds(T0 + 50_000),
        'orders.events': seconds(T0 + 40_000),
      });
    } finally {
      await sweeper.onApplicationShutdown();
    }
    // Shut down, it exports nothing: a stopped instance's moment is no answer of the others.
    expect(await moments()).toEqual({});
  });
});
