import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { ConsumerHealth } from './client-health';
import { restartAfterCrash } from './consumer-restart';

/** The part of a kafkajs consumer restartAfterCrash and ConsumerHealth use: events, connect, disconnect. */
function aConsumer() {
  const emitter = new EventEmitter();
  const events = {
    GROUP_JOIN: 'consumer.group_join',
    CRASH: 'consumer.crash',
    HEARTBEAT: 'consumer.heartbeat',
    FETCH: 'consumer.fetch',
    REBALANCING: 'consumer.rebalancing',
    STOP: 'consumer.stop',
  };
  const calls: string[] = [];
  let failConnects = 0;
  const consumer = {
    events,
    on: (event: string, listener: (e: unknown) => void) => emitter.on(event, listener),
    connect: jest.fn(async () => {
      calls.push('connect');
      if (failConnects > 0) {
        failConnects--;
        throw new Error('Connection error: connect ECONNREFUSED');
      }
    }),
    disconnect: jest.fn(async () => void calls.push('disconnect')),
  };
  return {
    consumer: consumer as unknown as Consumer,
    calls,
    failNextConnects: (n: number) => (failConnects = n),
    crash: (restart: boolean, message = 'Failed to find group coordinator') =>
      emitter.emit(events.CRASH, { payload: { error: new Error(message), restart } }),
    join: () => emitter.emit(events.GROUP_JOIN, { payload: {} }),
  };
}

describe('restartAfterCrash: a consumer kafkajs gives up on is started again', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setUp() {
    const c = aConsumer();
    const lines: string[] = [];
    let stopping = false;
    const start = jest.fn(async () => void c.calls.push('start'));
    const restarts = restartAfterCrash(c.consumer, {
      start,
      stopping: () => stopping,
      log: (l) => lines.push(l),
      initialDelayMs: 1000,
      maxDelayMs: 4000,
    });
    return { ...c, lines, start, restarts, stop: () => (stopping = true) };
  }

  it('when kafkajs crashes it for good, then after the delay it is connected and started again, and the line says why', async () => {
    const t = setUp();
    t.crash(false);
    expect(t.lines).toEqual([
      'consumer stopped by kafkajs for good (Failed to find group coordinator); starting it again in 1000 ms',
    ]);
    await jest.advanceTimersByTimeAsync(999);
    expect(t.calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(t.calls).toEqual(['connect', 'start']);
  });

  it('when kafkajs restarts it by itself, then nothing else is done', async () => {
    const t = setUp();
    t.crash(true, 'The group is rebalancing');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(t.calls).toEqual([]);
    expect(t.lines).toEqual([]);
  });

  it('when starting again fails, then the delay doubles up to the bound, and returns to the first once it has joined', async () => {
    const t = setUp();
    t.failNextConnects(3);
    t.crash(false);
    await jest.advanceTimersByTimeAsync(1000); // fails, next in 2000
    await jest.advanceTimersByTimeAsync(2000); // fails, next in 4000
    await jest.advanceTimersByTimeAsync(4000); // fails, next in 4000 (the bound)
    await jest.advanceTimersByTimeAsync(4000); // connects and starts
    expect(t.calls).toEqual([
      'connect',
      'disconnect',
      'connect',
      'disconnect',
      'connect',
      'disconnect',
      'connect',
      'start',
    ]);
    expect(t.lines.map((l) => l.match(/in (\d+) ms/)![1])).toEqual(['1000', '2000', '4000', '4000']);
    t.join();
    t.crash(false);
    expect(t.lines.at(-1)).toMatch(/in 1000 ms$/);
  });

  it('when two crashes come before the restart, then it is started once', async () => {
    const t = setUp();
    t.crash(false);
    t.crash(false);
    await jest.advanceTimersByTimeAsync(5000);
    expect(t.calls).toEqual(['connect', 'start']);
  });

  it('when the owner is stopping, then a crash is left alone, and a restart already scheduled is cancelled', async () => {
    const t = setUp();
    t.crash(false);
    await t.restarts.cancel();
    t.stop();
    t.crash(false);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(t.calls).toEqual([]);
    expect(t.lines).toHaveLength(1);
  });

  it('when the owner begins its shutdown while a restart waits for the broker, then it disconnects instead of starting, and cancel waited for it', async () => {
    const c = aConsumer();
    let stopping = false;
    let connected!: () => void;
    (c.consumer.connect as jest.Mock).mockImplementationOnce(
      () => new Promise<void>((r) => (connected = () => (c.calls.push('connect'), r()))),
    );
    const start = jest.fn(async () => void c.calls.push('start'));
    const restarts = restartAfterCrash(c.consumer, { start, stopping: () => stopping, log: () => undefined });
    c.crash(false);
    await jest.advanceTimersByTimeAsync(1000); // the restart is under way, connect waiting
    stopping = true;
    const cancelled = restarts.cancel();
    connected();
    await cancelled;
    expect(c.calls).toEqual(['connect', 'disconnect']);
    expect(start).not.toHaveBeenCalled();
  });

  it('when a first start failed before kafkajs ran the consumer, then now() starts it again like a crash', async () => {
    const t = setUp();
    t.restarts.now('Connection error: connect ECONNREFUSED');
    expect(t.lines[0]).toMatch(/ECONNREFUSED\); starting it again in 1000 ms$/);
    await jest.advanceTimersByTimeAsync(1000);
    expect(t.calls).toEqual(['connect', 'start']);
  });

  it('when ConsumerHealth watches a consumer restarted this way, then such a crash reads as restarting, not wedged, and ready again once it joins', () => {
    const c = aConsumer();
    let now = 0;
    const watched = new ConsumerHealth('kafka-consumer', 'orders', { clock: () => now }).watch(c.consumer, {
      restartedAfterCrash: true,
    });
    const unwatched = new ConsumerHealth('kafka-consumer', 'orders', { clock: () => now }).watch(c.consumer);
    c.join();
    c.crash(false);
    now = 1000;
    expect(watched.health(now)).toMatchObject({ ready: false, detail: expect.stringMatching(/restarting/) });
    expect(watched.health(now).wedged).toBeUndefined();
    expect(unwatched.health(now)).toMatchObject({ ready: false, wedged: true });
    c.join();
    expect(watched.health(now)).toMatchObject({ ready: true });
  });
});
