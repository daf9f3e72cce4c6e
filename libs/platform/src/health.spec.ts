import { ComponentHealth, HealthRegistry } from './health';

const component = (
  name: string,
  h: ComponentHealth,
  needsBroker = false,
  restartWouldHelp?: () => Promise<boolean>,
) => ({
  name,
  needsBroker,
  health: () => h,
  ...(restartWouldHelp ? { restartWouldHelp } : {}),
});

describe('HealthRegistry: readiness and liveness of a service from its components', () => {
  const settings = { livenessGraceMs: 120_000, checkTimeoutMs: 50 };
  const now = 10_000_000;

  it('when every component is ready, then the service is ready and live', async () => {
    const registry = new HealthRegistry(settings);
    registry.register(component('database', { ready: true, detail: 'answers SELECT 1' }));
    registry.register(component('kafka-consumer', { ready: true, detail: 'a member' }, true));
    expect(await registry.report(now)).toEqual({
      ready: true,
      live: true,
      components: {
        database: { ready: true, detail: 'answers SELECT 1' },
        'kafka-consumer': { ready: true, detail: 'a member' },
      },
    });
  });

  it('when the database does not answer, then the service is not ready but live (a restart would not bring it back)', async () => {
    const registry = new HealthRegistry(settings);
    registry.register(component('database', { ready: false, detail: 'down', notReadySince: now - 3_600_000 }));
    const report = await registry.report(now);
    expect(report).toMatchObject({ ready: false, live: true });
  });

  it('when a check hangs, then it counts as not ready after the check timeout', async () => {
    const registry = new HealthRegistry(settings);
    registry.register({ name: 'database', health: () => new Promise<ComponentHealth>(() => undefined) });
    const report = await registry.report(now);
    expect(report.components.database).toEqual({ ready: false, detail: 'no answer within 50 ms' });
  });

  it('when a broker-side component is not ready past the grace and a fresh client would get through, then liveness fails', async () => {
    const registry = new HealthRegistry(settings);
    let freshClientGetsThrough = false;
    registry.register(
      component(
        'kafka-producer:outbox',
        { ready: false, detail: 'a send has waited', notReadySince: now - 120_001 },
        true,
        async () => freshClientGetsThrough,
      ),
    );
    // The broker away, a topic deleted, too few replicas in sync: a restart would change nothing.
    expect((await registry.report(now)).live).toBe(true);
    freshClientGetsThrough = true;
    const report = await registry.report(now);
    expect(report.live).toBe(false);
    expect(report.liveness).toBe(
      'kafka-producer:outbox has not been ready for 120 s while a fresh client would get through: a send has waited',
    );
  });

  it('when the fresh client does not answer within the check timeout, then liveness holds', async () => {
    const registry = new HealthRegistry(settings);
    const never = () => new Promise<boolean>(() => undefined);
    registry.register(
      component('kafka-consumer', { ready: false, detail: 'x', notReadySince: now - 200_000 }, true, never),
    );
    expect((await registry.report(now)).live).toBe(true);
  });

  it('when it is not ready for less than the grace, then the process is live (the fresh client is not even asked)', async () => {
    const registry = new HealthRegistry(settings);
    let asked = false;
    const check = async () => (asked = true);
    registry.register(
      component('kafka-consumer', { ready: false, detail: 'x', notReadySince: now - 119_000 }, true, check),
    );
    expect((await registry.report(now)).live).toBe(true);
    expect(asked).toBe(false);
  });

  it('when a component that does not affect readiness is not ready, then the service stays ready and the component says so', async () => {
    const registry = new HealthRegistry(settings);
    registry.register({
      name: 'kafka-producer:outbox',
      affectsReadiness: false,
      health: () => ({ ready: false, detail: 'a send has waited 20 s for the broker' }),
    });
    expect(await registry.report(now)).toEqual({
      ready: true,
      live: true,
      components: {
        'kafka-producer:outbox': { ready: false, optional: true, detail: 'a send has waited 20 s for the broker' },
      },
    });
  });

  it('when a component is wedged, then liveness fails at once', async () => {
    const registry = new HealthRegistry(settings);
    registry.register(
      component('kafka-consumer', { ready: false, wedged: true, detail: 'crashed and will not restart' }, true),
    );
    expect(await registry.report(now)).toMatchObject({
      live: false,
      liveness: 'kafka-consumer is wedged: crashed and will not restart',
    });
  });
});
