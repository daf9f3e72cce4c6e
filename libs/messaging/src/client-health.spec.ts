import type { Consumer } from 'kafkajs';
import { ConsumerHealth, ProducerHealth } from './client-health';

/** A stand-in for a kafkajs consumer: only the events ConsumerHealth listens to. */
function fakeConsumer() {
  const listeners = new Map<string, ((e: unknown) => void)[]>();
  const events = {
    GROUP_JOIN: 'join',
    HEARTBEAT: 'heartbeat',
    FETCH: 'fetch',
    FETCH_START: 'fetch_start',
    REBALANCING: 'rebalancing',
    CRASH: 'crash',
    STOP: 'stop',
  };
  const consumer = {
    events,
    on: (event: string, listener: (e: unknown) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return () => undefined;
    },
  };
  const emit = (event: keyof typeof events, payload: unknown = {}) =>
    (listeners.get(events[event]) ?? []).forEach((l) => l({ payload }));
  return { consumer: consumer as unknown as Consumer, emit };
}

describe('ConsumerHealth: whether a consumer is a working member of its group', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('when the consumer has not joined yet, then it is not ready', () => {
    const { consumer } = fakeConsumer();
    const health = new ConsumerHealth('kafka-consumer', 'orders', { stallMs: 15_000, clock }).watch(consumer);
    expect(health.health(now)).toMatchObject({ ready: false, detail: 'joining group orders' });
  });

  it('when it joined and heartbeats, then it is ready; when it is quiet past the bound, then it is not, and a heartbeat brings it back', () => {
    const { consumer, emit } = fakeConsumer();
    const health = new ConsumerHealth('kafka-consumer', 'orders', { stallMs: 15_000, clock }).watch(consumer);
    emit('GROUP_JOIN');
    expect(health.health(now).ready).toBe(true);
    now += 10_000;
    emit('HEARTBEAT');
    now += 15_000;
    expect(health.health(now)).toEqual({ ready: true, detail: 'a member of group orders' });
    now += 1;
    const stale = health.health(now);
    expect(stale).toMatchObject({ ready: false, notReadySince: now - 15_001 });
    expect(stale.detail).toBe('no heartbeat or fetch of group orders for 15 s');
    // A fetch attempt is not a sign of life (it is tried against a broker that is away too).
    emit('FETCH_START');
    expect(health.health(now).ready).toBe(false);
    emit('FETCH');
    expect(health.health(now).ready).toBe(true);
  });

  it('when it crashes and kafkajs restarts it, then it is not ready until it fetches again; a crash without restart is wedged', () => {
    const { consumer, emit } = fakeConsumer();
    const health = new ConsumerHealth('kafka-consumer', 'orders', { stallMs: 15_000, clock }).watch(consumer);
    emit('GROUP_JOIN');
    emit('CRASH', { error: new Error('coordinator gone'), restart: true });
    expect(health.health(now)).toMatchObject({
      ready: false,
      detail: 'crashed (coordinator gone); kafkajs is restarting it',
    });
    expect(health.health(now).wedged).toBeUndefined();
    emit('GROUP_JOIN');
    expect(health.health(now).ready).toBe(true);
    emit('CRASH', { error: new Error('request is not a function'), restart: false });
    expect(health.health(now)).toMatchObject({ ready: false, wedged: true });
  });

  it('when it stops (the service shuts down), then it is not ready', () => {
    const { consumer, emit } = fakeConsumer();
    const health = new ConsumerHealth('kafka-consumer', 'orders', { stallMs: 15_000, clock }).watch(consumer);
    emit('GROUP_JOIN');
    emit('STOP');
    expect(health.health(now)).toMatchObject({ ready: false, detail: 'stopped (group orders)' });
  });
});

describe('ProducerHealth: whether a producer gets messages through', () => {
  let now = 5_000_000;
  const clock = () => now;
  const never = () => new Promise<void>(() => undefined);

  it('when nothing was sent, then it is ready', () => {
    expect(new ProducerHealth('kafka-producer:outbox', { stallMs: 15_000, clock }).health(now).ready).toBe(true);
  });

  it('when a send waits past the bound (kafkajs still retrying), then it is not ready, and ready again once it returns', async () => {
    const health = new ProducerHealth('kafka-producer:outbox', { stallMs: 15_000, clock });
    let finish!: () => void;
    const sent = health.track(new Promise<void>((r) => (finish = r)));
    now += 15_000;
    expect(health.health(now).ready).toBe(true);
    now += 1;
    expect(health.health(now)).toMatchObject({ ready: false, notReadySince: now - 15_001 });
    finish();
    await sent;
    expect(health.health(now).ready).toBe(true);
  });

  it('when every send fails for longer than the bound while sends are tried, then it is not ready; a success clears it', async () => {
    const health = new ProducerHealth('kafka-producer:requests', { stallMs: 15_000, clock });
    await expect(health.track(Promise.reject(new Error('broker away')))).rejects.toThrow('broker away');
    now += 16_000;
    await expect(health.track(Promise.reject(new Error('broker away')))).rejects.toThrow('broker away');
    expect(health.health(now)).toMatchObject({ ready: false, detail: 'every send has failed for 16 s: broker away' });
    await health.track(Promise.resolve());
    expect(health.health(now).ready).toBe(true);
  });

  it('when the failing sends stopped being tried (nothing to judge by), then it counts as ready again', async () => {
    const health = new ProducerHealth('kafka-producer:requests', { stallMs: 15_000, clock });
    await expect(health.track(Promise.reject(new Error('x')))).rejects.toThrow();
    now += 16_000;
    expect(health.health(now).ready).toBe(true);
  });

  it("when failures are someone else's trouble (replies to a requester that is gone), then only a send that never returns counts", async () => {
    const health = new ProducerHealth('kafka-producer:gateway.replies', {
      stallMs: 15_000,
      clock,
      judgeFailures: false,
    });
    await expect(health.track(Promise.reject(new Error('topic gone')))).rejects.toThrow();
    now += 10_000;
    await expect(health.track(Promise.reject(new Error('topic gone')))).rejects.toThrow();
    now += 10_000;
    await expect(health.track(Promise.reject(new Error('topic gone')))).rejects.toThrow();
    expect(health.health(now).ready).toBe(true);
    void health.track(never());
    now += 15_001;
    expect(health.health(now).ready).toBe(false);
  });
});

describe('after the liveness grace: would a restart help?', () => {
  it("when a producer's sends wait, then the fresh client is asked about the topics they go to", async () => {
    const asked: (readonly string[])[] = [];
    const health = new ProducerHealth('kafka-producer:dead-letters', {
      freshClient: async (topics) => {
        asked.push(topics);
        return true;
      },
    });
    void health.track(new Promise<void>(() => undefined), ['orders.commands.dlq']);
    expect(await health.restartWouldHelp()).toBe(true);
    expect(asked).toEqual([['orders.commands.dlq']]);
  });

  it('when a consumer is stuck, then the fresh client is asked about the topics it reads; without one, a restart is never judged to help', async () => {
    const asked: (readonly string[])[] = [];
    const consumer = new ConsumerHealth('kafka-consumer', 'orders', {
      freshClient: async (topics) => {
        asked.push(topics);
        return false;
      },
    }).subscribedTo(['orders.commands', 'provider.events']);
    expect(await consumer.restartWouldHelp()).toBe(false);
    expect(asked).toEqual([['orders.commands', 'provider.events']]);
    expect(await new ConsumerHealth('kafka-consumer', 'orders').restartWouldHelp()).toBe(false);
  });
});
