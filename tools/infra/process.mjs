// @ts-check
// Process helpers shared by the infrastructure scripts (kafka.mjs, postgres.mjs) and by every run
// that starts processes of its own (npm run bench, npm run test:faults): is a pid alive, a lock
// file that parallel callers wait on, and what a run starts it stops however it ends.
//
// Node builtins only: these run before `npm install`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * True while the process runs. A zombie (exited, not yet reaped by its parent) counts as dead; a
 * process of another user (EPERM) counts as alive.
 * @param {number | null | undefined} pid
 */
export function pidAlive(pid) {
  if (!Number.isInteger(pid) || !pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  } catch {
    /* no /proc (macOS): trust kill(0) */
  }
  return true;
}

/**
 * True when pid is alive and its command line contains `marker` (where /proc exists): a pid file
 * may name a pid the system has since given to another process.
 * @param {number | null | undefined} pid
 * @param {string} marker
 */
export function pidRuns(pid, marker) {
  if (!pidAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** The pid on line `line` of a pid file, or null. @param {string} file @param {number} [line] */
export function readPid(file, line = 0) {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').split('\n')[line], 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Sends a signal, ignoring a process that is already gone. @param {number | null | undefined} pid @param {NodeJS.Signals} signal */
export function signal(pid, signal) {
  try {
    if (pid) process.kill(pid, signal);
  } catch {
    /* gone */
  }
}

/**
 * Stops a child process: `sig`, then SIGKILL after graceMs; resolves when it has exited. A child
 * that exited already — with a code or by a signal — resolves at once (waiting for the 'exit' of a
 * child killed by a signal earlier is what kept `npm run bench` from ever ending).
 * @param {import('node:child_process').ChildProcess} child
 * @param {NodeJS.Signals} [sig]
 * @param {number} [graceMs]
 * @returns {Promise<void>}
 */
export function stopChild(child, sig = 'SIGTERM', graceMs = 10_000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(sig);
  });
}

/**
 * Runs fn while holding lockFile (created exclusively, holding our pid), so that parallel callers
 * (several test runners) do not start two brokers or two servers. A lock whose holder died is
 * taken over.
 * @template T
 * @param {string} lockFile
 * @param {{ log?: (msg: string) => void, timeoutMs?: number }} opts
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withLock(lockFile, { log = () => {}, timeoutMs = 300_000 }, fn) {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  const t0 = Date.now();
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw e;
      const holder = readPid(lockFile);
      if (holder === null || !pidAlive(holder)) {
        fs.rmSync(lockFile, { force: true }); // stale lock from a killed run
        continue;
      }
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${lockFile} (held by pid ${holder})`);
      if (!announced) log(`waiting for another ensure (pid ${holder}) to finish ...`);
      announced = true;
      await sleep(300);
    }
  }
  try {
    return await fn();
  } finally {
    if (readPid(lockFile) === process.pid) fs.rmSync(lockFile, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// A run: what it started, it stops — when it ends, fails, is interrupted, or is killed itself.

const REAPER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reaper.mjs');

/**
 * @typedef {{ group?: boolean, signal?: NodeJS.Signals }} OwnOptions
 *   group: the pid leads a process group of its own (spawned detached): the whole group is signalled.
 *   signal: how it is asked to stop (default SIGTERM); SIGKILL follows after 10 s.
 */

/**
 * A watchdog process (reaper.mjs) for the pids this process owns: should this process die without
 * stopping them (SIGKILL, a crash, a ^C without a handler), the watchdog stops them. Nothing is
 * started until the first pid is owned.
 * @param {{ log?: (...args: unknown[]) => void }} [opts]
 */
export function startWatchdog({ log = () => {} } = {}) {
  /** @type {Map<number, Required<OwnOptions>>} */
  const owned = new Map();
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let reaper;

  const tell = (/** @type {unknown} */ msg) => {
    if (reaper?.connected) reaper.send(/** @type {import('node:child_process').Serializable} */ (msg));
  };
  const ensureReaper = () => {
    if (reaper) return;
    reaper = spawn(process.execPath, [REAPER, String(process.pid)], {
      detached: true, // its own group: the terminal's ^C reaches us, not the watchdog
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    reaper.unref();
    // The channel must not keep this process alive (it is how the watchdog learns we died).
    /** @type {any} */ (reaper).channel?.unref();
    reaper.on('error', (err) => log(`watchdog did not start: ${err.message}`));
  };

  return {
    /**
     * This process owns pid: the watchdog stops it if this process dies first.
     * @param {number | undefined} pid
     * @param {OwnOptions} [opts]
     */
    own(pid, { group = false, signal: sig = 'SIGTERM' } = {}) {
      if (!pid) return;
      ensureReaper();
      owned.set(pid, { group, signal: sig });
      tell({ own: pid, group, signal: sig });
    },
    /** pid has stopped (or was handed on): the watchdog forgets it. @param {number | undefined} pid */
    disown(pid) {
      if (!pid) return;
      owned.delete(pid);
      tell({ disown: pid });
    },
    /** Signals every owned pid still alive (its own stop signal unless one is given). @param {NodeJS.Signals} [sig] */
    killOwned(sig) {
      for (const [pid, o] of owned) if (pidAlive(pid)) signal(o.group ? -pid : pid, sig ?? o.signal);
    },
    /** The watchdog's work is done: it exits before this process does, so that nothing outlives it. */
    async standDown() {
      const r = reaper;
      if (!r || r.exitCode !== null || r.signalCode !== null) return;
      const exited = new Promise((resolve) => r.once('exit', resolve));
      tell({ standDown: true });
      const timer = setTimeout(() => r.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts the lifecycle of a run. Cleanups registered with `defer` run last-in first-out when the
 * run finishes, fails, or gets SIGINT, SIGTERM or SIGHUP; a second signal skips them and kills at
 * once what the run owns. A watchdog (startWatchdog) holds the pids the run owns and stops them
 * when this process dies without cleaning up (SIGKILL, a crash): nothing the run started
 * outlives it.
 * @param {{ name: string, log: (...args: unknown[]) => void }} opts
 */
export function startRun({ name, log }) {
  /** @type {{ label: string, fn: () => Promise<unknown> | unknown }[]} */
  const cleanups = [];
  const watchdog = startWatchdog({ log });
  const killOwned = watchdog.killOwned;
  let finishing = false;
  const started = Date.now();

  /** Runs the cleanups (each once, errors logged, not thrown). */
  const cleanUp = async () => {
    while (cleanups.length) {
      const { label, fn } = /** @type {{ label: string, fn: () => unknown }} */ (cleanups.pop());
      try {
        await fn();
      } catch (err) {
        log(`could not ${label}: ${/** @type {Error} */ (err)?.message ?? err}`);
      }
    }
  };

  /** @type {Record<string, number>} */
  const exitCodes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
  for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(sig, () => {
      if (finishing) {
        log(`${sig} again: killing what the ${name} started, without cleaning up`);
        killOwned('SIGKILL');
        process.exit(exitCodes[sig]);
      }
      log(`${sig}: stopping what the ${name} started (again to force)`);
      void finish(exitCodes[sig]);
    });
  }

  /**
   * Cleans up and exits with `code`. Exiting explicitly is the point: the run's result must not
   * wait for a socket or timer some library left behind.
   * @param {number} code
   */
  async function finish(code) {
    if (finishing) return;
    finishing = true;
    await cleanUp();
    killOwned('SIGKILL'); // anything its own cleanup did not stop
    await watchdog.standDown();
    const outcome = code === 0 ? 'finished' : code >= 128 ? 'interrupted' : 'failed';
    log(
      `${outcome} in ${((Date.now() - started) / 1000).toFixed(0)} s (exit ${code}); what it started is stopped and removed`,
    );
    process.exit(code);
  }

  return {
    /** Register a cleanup; returns a function that runs it now (and unregisters it). */
    defer(/** @type {string} */ label, /** @type {() => Promise<unknown> | unknown} */ fn) {
      const entry = { label, fn };
      cleanups.push(entry);
      return async () => {
        const i = cleanups.indexOf(entry);
        if (i < 0) return;
        cleanups.splice(i, 1);
        await fn();
      };
    },
    /** The run owns pid: see startWatchdog. */
    own: watchdog.own,
    disown: watchdog.disown,
    get finishing() {
      return finishing;
    },
    finish,
    /**
     * Runs main, then finishes with its exit code (0 when it returns nothing); an error is printed
     * and finishes with 1.
     * @param {() => Promise<number | void>} main
     */
    async main(main) {
      let code = 1;
      try {
        code = (await main()) ?? 0;
      } catch (err) {
        if (finishing) return; // interrupted: the signal's finish() ends the run
        console.error(err);
      }
      await finish(code);
    },
  };
}

/** @typedef {ReturnType<typeof startRun>} Run */
