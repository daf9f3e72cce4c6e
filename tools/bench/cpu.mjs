// CPU time per process from Linux /proc: where one order's CPU goes. Clock ticks are 1/100 s on
// every Linux this runs on (USER_HZ), which `getconf CLK_TCK` confirms.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10;

function ticksOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may hold spaces: fields after the closing parenthesis, utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function processes(pgDatabase) {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      const wanted = comm === 'java' || (pgDatabase && comm === 'postgres');
      const cmdline = wanted ? readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') : '';
      out.push({ pid: Number(entry), comm, cmdline });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The processes a snapshot counts: each named one, PostgreSQL's (all, or one database's backends), the broker. */
function counted(named, { kafkaMarker, pgDatabase }) {
  /** @type {[string, number][]} */
  const out = named.filter(([, pid]) => pid !== undefined);
  for (const p of processes(pgDatabase)) {
    if (p.comm === 'postgres' && (!pgDatabase || p.cmdline.includes(` ${pgDatabase} `))) out.push(['postgres', p.pid]);
    else if (p.comm === 'java' && kafkaMarker && p.cmdline.includes(kafkaMarker) && p.cmdline.includes('kafka'))
      out.push(['kafka broker', p.pid]);
  }
  return out;
}

/**
 * Sums `read(pid)` over the processes `counted` gives, by name (PostgreSQL's and the broker's always
 * present). Each process's own figure is kept too (non-enumerable `perPid`), so that `cpuDelta`
 * can count a PostgreSQL backend that ended between two snapshots as nothing rather than as minus
 * everything it ever used: pools close idle connections, and the sum alone then went negative.
 */
function snapshotOf(named, opts, read) {
  /** @type {Record<string, number>} */
  const snap = {};
  /** @type {Map<number, [string, number]>} */
  const perPid = new Map();
  for (const [name] of named) snap[name] = 0;
  snap.postgres = 0;
  if (opts.kafkaMarker) snap['kafka broker'] = 0;
  for (const [name, pid] of counted(named, opts)) {
    const value = read(pid);
    snap[name] = (snap[name] ?? 0) + value;
    perPid.set(pid, [name, value]);
  }
  Object.defineProperty(snap, 'perPid', { value: perPid, enumerable: false });
  return snap;
}

/**
 * CPU milliseconds used so far by each named process, plus PostgreSQL (all its processes) and the
 * Kafka broker whose command line mentions `kafkaMarker` (its run directory). With `pgDatabase`,
 * only the PostgreSQL backends connected to that database count (a shared server's other work does not).
 * @param {[string, number | undefined][]} named
 * @param {{ kafkaMarker?: string, pgDatabase?: string }} [opts]
 * @returns {Record<string, number>}
 */
export function cpuSnapshot(named, opts = {}) {
  const snap = snapshotOf(named, opts, (pid) => ticksOf(pid) * TICK_MS);
  const self = process.cpuUsage();
  snap['load generator'] = (self.user + self.system) / 1000;
  return snap;
}

/**
 * Write and writev calls a process made so far (`syscw` of /proc/<pid>/io; all its threads). Not
 * send/sendto/sendmsg, which do not pass through it: PostgreSQL answers with send(). NaN when the
 * file cannot be read (another user's process, unless root).
 */
export function writeCallsOf(pid) {
  try {
    return Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/**
 * Write calls made so far by the same processes `cpuSnapshot` counts (the load generator's own
 * included): Node's sockets, pipes and files, the broker's sockets and logs, PostgreSQL's WAL and
 * logs (its answers go by send(), which this does not count).
 * @param {[string, number | undefined][]} named
 * @param {{ kafkaMarker?: string, pgDatabase?: string }} [opts]
 */
export function writeCallsSnapshot(named, opts = {}) {
  const snap = snapshotOf(named, opts, writeCallsOf);
  snap['load generator'] = writeCallsOf(process.pid);
  return snap;
}

/**
 * What each process spent between two snapshots: per process where both have them (a process that
 * started in between counts whole, one that ended counts nothing; its last moments are lost), else
 * by name.
 */
export function cpuDelta(before, after) {
  /** @type {Map<number, [string, number]> | undefined} */
  const b = before.perPid;
  /** @type {Map<number, [string, number]> | undefined} */
  const a = after.perPid;
  if (!a || !b) return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
  /** @type {Record<string, number>} */
  const out = Object.fromEntries(Object.keys(after).map((k) => [k, 0]));
  for (const [pid, [name, value]] of a) {
    const prior = b.get(pid);
    out[name] += prior && prior[0] === name ? Math.max(0, value - prior[1]) : value;
  }
  // Figures without a process in either snapshot (the load generator's own): by name.
  const withProcesses = new Set([...a.values(), ...b.values()].map(([n]) => n));
  for (const k of Object.keys(after)) if (!withProcesses.has(k)) out[k] = after[k] - (before[k] ?? 0);
  return out;
}
