import { DataSource } from 'typeorm';
import { metricsRegistry } from '@payments/platform';
import { LedgerConfig } from '../config';
import { BooksMonitor } from './books-monitor';

const STARTED = new Date('2026-11-27T10:00:00Z');
const lastCheck = async () =>
  metricsRegistry.getSingleMetricAsString('payments_ledger_books_last_check_timestamp_seconds');

describe("the books monitor's last-check gauge (decision 306)", () => {
  it('when every check of the books fails from the start, then the gauge says the start, so LedgerBooksNotChecked can fire', async () => {
    let asked = 0;
    const failing = {
      query: async () => {
        asked += 1;
        throw new Error('relation "ledger.ops_transactions" does not exist');
      },
    } as unknown as DataSource;
    const config = { schema: 'ledger', booksCheckMs: 3_600_000 } as LedgerConfig;
    const monitor = new BooksMonitor(failing, config, { now: () => STARTED });
    monitor.onApplicationBootstrap();
    try {
      expect(await lastCheck()).toContain(
        `payments_ledger_books_last_check_timestamp_seconds ${STARTED.getTime() / 1000}`,
      );
      // The first check ran at start (and failed), not an interval later.
      expect(asked).toBeGreaterThan(0);
    } finally {
      await monitor.onApplicationShutdown();
    }
  });
});
