import { ProcessingTimeoutSweeper } from '@payments/apps/orders';
import { TestStack } from '../support/stack';

/**
 * A service that closes must stop everything it started. Hybrid Nest apps (HTTP + the Kafka
 * microservice) run bootstrap hooks once per part, so a hook that is not idempotent starts a
 * second timer or producer that outlives the app.
 */
describe('closing a service', () => {
  it('when the orders service closes, then its processing-timeout sweeper runs no more', async () => {
    const stack = await TestStack.start({ services: ['orders'], extraEnv: { ORDERS_SWEEP_INTERVAL_MS: '100' } });
    const orders = stack.orders![0];
    const sweeper = orders.app.get(ProcessingTimeoutSweeper);
    let sweepsAfterClose = 0;
    let closed = false;
    const sweep = sweeper.sweep.bind(sweeper);
    sweeper.sweep = (now, batch) => {
      if (closed) sweepsAfterClose += 1;
      return sweep(now, batch);
    };
    try {
      // Let the timer(s) fire a few times while the app runs.
      await new Promise((r) => setTimeout(r, 350));
    } finally {
      await stack.stop();
      closed = true;
    }
    // Several sweep intervals after close: a leaked timer would have fired in that time.
    await new Promise((r) => setTimeout(r, 500));
    expect(sweepsAfterClose).toBe(0);
  });
});
