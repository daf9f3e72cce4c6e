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
const ages = async (): Promise<Record<string, number>> => {
  const metric = await metricsRegistry.getSingleMetric('payments_ledger_events_read_through_age_seconds')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.topic), v.value]));
};

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

describe("the orphan sweep's read-through age (decision 357)", () => {
  it('when the sweep can tell, then the age is counted from the moment read through; while it cannot, from the last it could, so it keeps growing', async () => {
    const clock = { ms: T0 };
    const readAt = new Date(T0 + 50_000);
    // Per run: payouts.events, then orders.events.
    const sweeper = sweeperAt(clock, [null, null, readAt, new Date(T0 + 40_000), null, null]);
    sweeper.onApplicationBootstrap();
    sweeper.onApplicationBootstrap(); // Nest calls it once per part of the app
    try {
      // Before any answer: from the start, as LedgerEventsNotReadThrough needs to fire on a ledger that never can tell.
      expect(await ages()).toEqual({ 'payouts.events': 0, 'orders.events': 0 });
      clock.ms = T0 + 60_000;
      await sweeper.sweep();
      expect(await ages()).toEqual({ 'payouts.events': 60, 'orders.events': 60 });
      clock.ms = T0 + 120_000;
      await sweeper.sweep();
      expect(await ages()).toEqual({ 'payouts.events': 70, 'orders.events': 80 });
      clock.ms = T0 + 300_000;
      await sweeper.sweep();
      expect(await ages()).toEqual({ 'payouts.events': 250, 'orders.events': 260 });
    } finally {
      await sweeper.onApplicationShutdown();
    }
    // Shut down, it exports nothing: another instance's figure is not held down by a stopped one.
    expect(await ages()).toEqual({});
  });
});
