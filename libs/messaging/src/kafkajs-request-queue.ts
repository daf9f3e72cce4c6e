/**
 * kafkajs 2.2.4, its last release, keeps every broker connection's request queue awake once a
 * millisecond, forever (tulios/kafkajs#1556, #1704; the fixes #1667 and #1768 are not merged).
 * `scheduleCheckPendingRequests` runs after every response and every check, and with no request
 * waiting and no throttle it still sets a timer, for `throttledUntil - now` ms: `-1 - now`, which
 * Node runs after 1 ms, and whose check schedules the next. Each service holds a dozen such
 * connections (consumers, producers, admin), so each woke ~1300 times a second for nothing: about
 * 50–60 ms of CPU a second idle on a 2-core machine, and as much again under load.
 *
 * A check is needed only while a request waits in the queue (for a throttle or for in-flight
 * room): a request that waits is pushed through `scheduleCheckPendingRequests`, and a response
 * or timeout runs `checkPendingRequests` itself. So the schedule is kept only then: at the end of
 * the throttle, or after kafkajs's own 10 ms when merely over the in-flight limit. That is the
 * upstream patch (#1667); replaced on the class's prototype, since kafkajs is no longer released.
 * Only for the version whose code it was read against: `kafkajsRequestQueueFixed()` says whether
 * it applied, and a spec fails when a kafkajs upgrade leaves it unapplied.
 */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: how soon a queue over its in-flight limit looks again. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
const FIXED_VERSION = '2.2.4';
const PATCHED = Symbol.for('payments.kafkajsRequestQueueFixed');

function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const throttled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    throttled > 0 ? throttled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

type QueueClass = { prototype: RequestQueueInternals & { [PATCHED]?: true } };

/** Replaces the busy schedule on kafkajs's RequestQueue (once per process); answers whether it is in place. */
export function fixKafkajsRequestQueue(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('kafkajs/package.json') as { version: string };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as QueueClass;
  const proto = RequestQueue.prototype;
  if (proto[PATCHED]) return true;
  if (version !== FIXED_VERSION || typeof proto.scheduleCheckPendingRequests !== 'function') return false;
  proto.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  proto[PATCHED] = true;
  return true;
}

export function kafkajsRequestQueueFixed(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as QueueClass;
  return RequestQueue.prototype[PATCHED] === true;
}
