import { ConsoleLogger, Module } from '@nestjs/common';
import { metricsRegistry, ScrapedGauge } from './metrics';
import { createHttpApp } from './service-app';

@Module({})
class EmptyModule {}

async function getMetrics(metricsEnabled: boolean): Promise<{ status: number; body: string }> {
  const app = await createHttpApp(EmptyModule, { logger: new ConsoleLogger({ logLevels: [] }), metricsEnabled });
  await app.init();
  try {
    const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
    return { status: res.statusCode, body: res.body };
  } finally {
    await app.close();
  }
}

describe('/metrics of an app', () => {
  it('when metrics are on, then /metrics answers the process metrics in Prometheus text', async () => {
    const { status, body } = await getMetrics(true);
    expect(status).toBe(200);
    expect(body).toMatch(/^# HELP process_cpu_user_seconds_total /m);
    expect(body).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('when METRICS_ENABLED is false, then there is no /metrics', async () => {
    expect((await getMetrics(false)).status).toBe(404);
  });
});

describe('a gauge read at scrape time', () => {
  it('when one source fails, then the others still answer and the scrape does not fail', async () => {
    const gauge = new ScrapedGauge<'source'>({
      name: 'test_scraped_things',
      help: 'Things, for this test.',
      labelNames: ['source'],
    });
    const removeGood = gauge.add(async () => [{ labels: { source: 'good' }, value: 3 }]);
    const removeBad = gauge.add(() => Promise.reject(new Error('database down')));
    try {
      const text = await metricsRegistry.getSingleMetricAsString('test_scraped_things');
      expect(text).toContain('test_scraped_things{source="good"} 3');
      expect(text).not.toContain('bad');
    } finally {
      removeGood();
      removeBad();
    }
    // A removed source (its app closed) leaves no series behind.
    expect(await metricsRegistry.getSingleMetricAsString('test_scraped_things')).not.toContain('source=');
  });
});
