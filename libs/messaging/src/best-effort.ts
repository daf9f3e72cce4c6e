/** How long a tidy-up at shutdown may take (deleting a group, a tombstone) before it is let go. */
export const TIDY_UP_MS = 2000;

/**
 * Runs a tidy-up that may not hold a stopping process up: its answer, or nothing after `ms` (and
 * never a rejection). During a broker outage kafkajs would retry such a call for over a minute.
 */
export async function bestEffort<T>(work: Promise<T>, ms = TIDY_UP_MS): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
