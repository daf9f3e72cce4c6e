import type { Consumer } from 'kafkajs';

/** The first wait before a crashed consumer is started again; it doubles while starting fails. */
export const RESTART_INITIAL_DELAY_MS = 1000;
/** The longest wait between two starts of a consumer that keeps failing to start. */
export const RESTART_MAX_DELAY_MS = 30_000;

export interface RestartAfterCrashOptions {
  /** What the owner did after `connect` at first: subscribe and run, with the same settings. */
  start: () => Promise<void>;
  /** True once the owner is shutting down: a crash then is left alone. */
  stopping: () => boolean;
  /** One line per restart scheduled (why, and when). */
  log: (line: string) => void;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** How long a shutdown waits for a restart under way to finish joining before it disconnects. */
export const RESTART_CANCEL_WAIT_MS = 5000;

/** What the owner of a consumer restarted this way may do. */
export interface ConsumerRestarts {
  /** Starts it again as after a crash: for a first start that failed before kafkajs ran it. */
  now(why: string): void;
  /**
   * Nothing restarts from now on: a restart not yet begun is cancelled, and one under way is waited
   * for (up to RESTART_CANCEL_WAIT_MS) so that the owner's disconnect comes after it; one that
   * finishes later finds its owner stopping and disconnects by itself. Await it before disconnecting.
   */
  cancel(): Promise<void>;
}

/**
 * kafkajs starts a crashed consumer again only after a retriable error. After any other it leaves
 * the consumer stopped until the process restarts — and the broker away longer than the group
 * coordinator lookup's retries is one (`KafkaJSNonRetriableError: Failed to find group
 * coordinator`): a broker restarted gracefully under load stopped the consumers of p2p,
 * merchant-callbacks and the gateway's replies for good (fault k, decision 302). This starts such a
 * consumer again itself: after a delay, `connect` and `start`, the delay doubling (up to
 * `maxDelayMs`) while the start fails or crashes again, and back to the first once the consumer
 * has joined its group. ConsumerHealth shows it restarting meanwhile, not wedged; liveness still
 * fails if it stays out of its group while a fresh client would get in.
 */
export function restartAfterCrash(consumer: Consumer, opts: RestartAfterCrashOptions): ConsumerRestarts {
  const initial = opts.initialDelayMs ?? RESTART_INITIAL_DELAY_MS;
  const max = opts.maxDelayMs ?? RESTART_MAX_DELAY_MS;
  let delay = initial;
  let timer: NodeJS.Timeout | undefined;
  let underWay: Promise<void> | undefined;
  let cancelled = false;
  const stopping = () => cancelled || opts.stopping();

  const schedule = (why: string): void => {
    if (timer || stopping()) return;
    opts.log(`consumer stopped by kafkajs for good (${why}); starting it again in ${delay} ms`);
    timer = setTimeout(() => {
      timer = undefined;
      underWay = attempt().finally(() => (underWay = undefined));
    }, delay);
    delay = Math.min(delay * 2, max);
  };

  const attempt = async (): Promise<void> => {
    if (stopping()) return;
    try {
      await consumer.connect();
      // The owner may have begun its shutdown while connect waited for the broker.
      if (stopping()) return void (await consumer.disconnect().catch(() => undefined));
      // run() reports a failure to join as another CRASH, which schedules the next attempt.
      await opts.start();
      if (stopping()) await consumer.disconnect().catch(() => undefined);
    } catch (err) {
      await consumer.disconnect().catch(() => undefined);
      schedule(`starting it again failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  consumer.on(consumer.events.GROUP_JOIN, () => {
    delay = initial;
  });
  consumer.on(consumer.events.CRASH, (e) => {
    if (!e.payload.restart) schedule(e.payload.error.message);
  });
  return {
    now: (why) => schedule(why),
    cancel: async () => {
      cancelled = true;
      clearTimeout(timer);
      timer = undefined;
      if (!underWay) return;
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([underWay, new Promise<void>((r) => (wait = setTimeout(r, RESTART_CANCEL_WAIT_MS)))]);
      clearTimeout(wait);
    },
  };
}
