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

/**
 * CPU milliseconds used so far by each named process, plus PostgreSQL (all its processes) and the
 * Kafka broker whose command line mentions `kafkaMarker` (its run directory). With `pgDatabase`,
 * only the PostgreSQL backends connected to that database count (a shared server's other work does not).
 * @param {[string, number | undefined][]} named
 * @param {{ kafkaMarker?: string, pgDatabase?: string }} [opts]
 * @returns {Record<string, number>}
 */
export function cpuSnapshot(named, { kafkaMarker, pgDatabase } = {}) {
  /** @type {Record<string, number>} */
  const snap = {};
  for (const [name, pid] of named) snap[name] = ticksOf(pid) * TICK_MS;
  let pg = 0;
  let kafka = 0;
  for (const p of processes(pgDatabase)) {
    if (p.comm === 'postgres' && (!pgDatabase || p.cmdline.includes(` ${pgDatabase} `))) pg += ticksOf(p.pid);
    else if (p.comm === 'java' && kafkaMarker && p.cmdline.includes(kafkaMarker) && p.cmdline.includes('kafka'))
      kafka += ticksOf(p.pid);
  }
  snap.postgres = pg * TICK_MS;
  if (kafkaMarker) snap['kafka broker'] = kafka * TICK_MS;
  const self = process.cpuUsage();
  snap['load generator'] = (self.user + self.system) / 1000;
  return snap;
}

/** What each process spent between two snapshots. */
export function cpuDelta(before, after) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}
