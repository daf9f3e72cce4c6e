/** How long a stopping service may take before it is ended (SHUTDOWN_TIMEOUT_MS). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;

interface Signals {
  once(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/**
 * Ends the process if its shutdown hooks have not finished `timeoutMs` after SIGTERM or SIGINT.
 * Every send and wait of a service is bounded, so its close should end in seconds; this is the
 * guarantee that a hook that never returns cannot keep a stopped service running (issue 27: a
 * wedged service ignored both signals and had to be killed by hand). It exits 1 and says so:
 * whatever was not finished comes back to another instance, as after a crash. With the pods'
 * preStop pause (5 s) it stays below Kubernetes' terminationGracePeriodSeconds (30 s), so the log
 * line is written before SIGKILL.
 */
export function installShutdownDeadline(
  timeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS,
  proc: Signals = process,
  exit: (code: number) => void = (code) => process.exit(code),
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const arm = (signal: string) => () => {
    const timer = setTimeout(() => {
      say(`shutdown after ${signal} did not finish within ${timeoutMs} ms: exiting`);
      exit(1);
    }, timeoutMs);
    timer.unref?.();
  };
  proc.once('SIGTERM', arm('SIGTERM'));
  proc.once('SIGINT', arm('SIGINT'));
}
