import { fixKafkajsRequestQueue, kafkajsRequestQueueFixed } from './kafkajs-request-queue';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: object) => {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
};

const quiet = { debug: () => undefined, warn: () => undefined, info: () => undefined, error: () => undefined };
const aQueue = () => new RequestQueue({ clientId: 'spec', broker: 'localhost:1', logger: quiet, requestTimeout: 1000 });

/**
 * A queue with one request waiting, throttled for `throttleMs` or not, asked twice to schedule its
 * check: the check comes once, `ms` later and not a millisecond before.
 */
const expectOneCheckAfter = (ms: number, throttleMs?: number) => {
  jest.useFakeTimers({ now: 1_000_000 });
  try {
    const q = aQueue();
    if (throttleMs !== undefined) q.throttledUntil = Date.now() + throttleMs;
    q.pending.push({});
    const checks = jest.spyOn(q, 'checkPendingRequests').mockImplementation(() => undefined);
    q.scheduleCheckPendingRequests();
    q.scheduleCheckPendingRequests();
    jest.advanceTimersByTime(ms - 1);
    expect(checks).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(checks).toHaveBeenCalledTimes(1);
    q.destroy();
  } finally {
    jest.useRealTimers();
  }
};

/**
 * kafkajs 2.2.4's request queue kept a 1 ms timer going with nothing to check
 * (tulios/kafkajs#1556); the fix keeps a check scheduled only while a request waits.
 */
describe('the kafkajs request queue, fixed', () => {
  beforeAll(() => expect(fixKafkajsRequestQueue()).toBe(true));

  it('when this kafkajs is the one the fix was written for, then the fix is in place (an upgrade must look again)', () => {
    expect(kafkajsRequestQueueFixed()).toBe(true);
  });

  it('when nothing waits in the queue, then a check schedules nothing, throttled or not', () => {
    const q = aQueue();
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.throttledUntil = Date.now() + 5000;
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('when a request waits for a throttle to end, then the check comes when it ends, and once', () => {
    expectOneCheckAfter(300, 300);
  });

  it('when a request waits for in-flight room with no throttle, then the check comes after 10 ms, as kafkajs meant', () => {
    expectOneCheckAfter(10);
  });
});
