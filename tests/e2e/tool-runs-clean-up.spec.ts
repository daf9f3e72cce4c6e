// `npm run bench` and `npm run test:faults` as a user runs them: as processes of their own, to
// their end or to a ^C in the middle. Each must exit by itself soon after its last line, and leave
// behind no process, topic, consumer group or database of its run.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';

const ROOT = path.resolve(__dirname, '..', '..');
/** From its last line to its exit: cleaning up comes before that line, so this is slack only. */
const EXIT_AFTER_LAST_LINE_MS = 5_000;
/** From SIGINT to its exit: services stop, the database and topics go, consumer groups go. */
const EXIT_AFTER_SIGINT_MS = 60_000;

interface Finished {
  pid: number;
  code: number | null;
  lines: string[];
  /** Milliseconds from the last line of output to the exit. */
  quietBeforeExitMs: number;
  /** Milliseconds from the SIGINT (if one was sent) to the exit. */
  exitAfterSigintMs?: number;
}

/** The run's exit code; when it is not `code`, the failure shows the run's last lines (they say why). */
function expectExit(run: Finished, code: number): void {
  const tail = run.code === code ? [] : run.lines.slice(-12);
  expect({ code: run.code, tail }).toEqual({ code, tail: [] });
}

/** Runs a tool to its end; with `interrupt`, sends its signal (SIGINT) once a line matches (after `delayMs`). */
function runTool(
  script: string,
  args: string[],
  env: Record<string, string>,
  interrupt?: { after: RegExp; delayMs?: number; signal?: NodeJS.Signals },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let lastLineAt = Date.now();
    let sigintAt: number | undefined;
    const onData = (d: Buffer) => {
      lastLineAt = Date.now();
      for (const line of d.toString().split('\n').filter(Boolean)) {
        lines.push(line);
        if (interrupt && sigintAt === undefined && interrupt.after.test(line)) {
          sigintAt = -1;
          setTimeout(() => {
            sigintAt = Date.now();
            child.kill(interrupt.signal ?? 'SIGINT');
          }, interrupt.delayMs ?? 0);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      const now = Date.now();
      resolve({
        pid: child.pid!,
        code,
        lines,
        quietBeforeExitMs: now - lastLineAt,
        exitAfterSigintMs: sigintAt && sigintAt > 0 ? now - sigintAt : undefined,
      });
    });
  });
}

/** The topic prefix the run announced ("created 22 topic(s) under bench….") */
function prefixOf(run: Finished): string {
  const prefix = run.lines.map((l) => / under ((?:bench|faults)[0-9a-z]+\.)/.exec(l)?.[1]).find(Boolean);
  if (!prefix) throw new Error(`the run never said its topic prefix:\n${run.lines.join('\n')}`);
  return prefix;
}

/** Processes of the run still alive: its services (by their topic prefix) and its watchdog. */
function processesLeft(run: Finished, prefix: string): string[] {
  const left: string[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (Number(entry) === run.pid || environ.includes(`KAFKA_TOPIC_PREFIX=${prefix}\0`))
        left.push(`${entry} ${cmdline}`);
      else if (cmdline.includes(`reaper.mjs ${run.pid}`)) left.push(`${entry} ${cmdline}`);
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return left;
}

async function kafkaLeft(prefix: string) {
  const admin = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return {
      topics: (await admin.listTopics()).filter((t) => t.startsWith(prefix)),
      groups: (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix)),
    };
  } finally {
    await admin.disconnect();
  }
}

/** What a killed run could not remove itself (a later run would sweep it after an hour). */
async function removeLeftovers(prefix: string, kind: string, pid: number) {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    for (const name of await databasesLeft(kind, pid)) await client.query(`DROP DATABASE "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  const admin = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { topics } = await kafkaLeft(prefix);
    if (topics.length) await admin.deleteTopics({ topics });
    // A group whose members the watchdog just stopped may still be emptying for a moment.
    for (let attempt = 0; ; attempt++) {
      const { groups } = await kafkaLeft(prefix);
      if (groups.length === 0) break;
      try {
        await admin.deleteGroups(groups);
      } catch (err) {
        if (attempt > 30) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

async function databasesLeft(kind: string, pid: number): Promise<string[]> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `payments_${kind}_%_${pid}`,
    ]);
    return rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

async function expectNothingLeft(run: Finished, kind: 'bench' | 'faults') {
  const prefix = prefixOf(run);
  const left = {
    processes: processesLeft(run, prefix),
    ...(await kafkaLeft(prefix)),
    databases: await databasesLeft(kind, run.pid),
  };
  const nothing = { processes: [], topics: [], groups: [], databases: [] };
  // The run's last lines say why, when something is left.
  const tail = JSON.stringify(left) === JSON.stringify(nothing) ? [] : run.lines.slice(-8);
  expect({ left, tail }).toEqual({ left: nothing, tail: [] });
}

const bench = ['tools/bench/bench.mjs', ['--smoke', '--no-build']] as const;
const faults = ['tools/faults/faults.mjs', ['--no-build']] as const;
const oneScenario = { FAULTS_ONLY: 'd', FAULTS_ORDERS: '6', FAULTS_WORKERS: '3' };

describe('bench and fault runs end by themselves and leave nothing behind', () => {
  beforeAll(() => {
    // The tools run the compiled services; --no-build spares each run its own compile.
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${r.stdout}${r.stderr}`);
  }, 120_000);

  it('when the smallest bench runs to its end, then it exits 0 at once and leaves nothing', async () => {
    const run = await runTool(bench[0], [...bench[1]], {});
    expectExit(run, 0);
    // The soak's CPU per order's life at its fixed rate, every order's life complete, the ledger's
    // own column in it, and every life's merchant callback latency (what two runs of unequal speed
    // compare on, issue 29).
    const soakLife = run.lines.find((l) => l.startsWith("[bench] soak: per order's life"));
    expect(soakLife).toMatch(
      /^\[bench\] soak: per order's life at \d+\.\d orders\/s over \d+\.\d s: CPU ms .*\bledger \d+\.\d\d\b.*\(system \d+\.\d\d\)/,
    );
    expect(soakLife).toMatch(/callback 200 → merchant callback p50 \d+\.\d ms, p99 \d+\.\d ms \(([1-9]\d*)\/\1\)$/);
    expect(run.quietBeforeExitMs).toBeLessThan(EXIT_AFTER_LAST_LINE_MS);
    await expectNothingLeft(run, 'bench');
  }, 180_000);

  it('when a crashed run left topics and a database, then the next run removes them once an hour old', async () => {
    // Names as a run that started two hours (or ten minutes) ago gives them; the pid 1 is nobody's run.
    const stamp = (agoMs: number) => (Date.now() - agoMs).toString(36);
    const old = { topic: `bench${stamp(7_200_000)}.sweep-test`, database: `payments_bench_${stamp(7_200_000)}_1` };
    const young = { topic: `bench${stamp(600_000)}.sweep-test`, database: `payments_bench_${stamp(600_000)}_1` };
    const admin = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING }).admin();
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([admin.connect(), client.connect()]);
    let listed = new Set<string>();
    try {
      // Without waiting for leaders: kafkajs's wait trips over the metadata of a topic this new.
      const topics = [old, young].map((l) => ({ topic: l.topic, numPartitions: 1 }));
      await admin.createTopics({ topics, waitForLeaders: false });
      while (!topics.every((t) => listed.has(t.topic))) {
        listed = new Set(await admin.listTopics());
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const l of [old, young]) await client.query(`CREATE DATABASE "${l.database}"`);

      const run = await runTool(bench[0], [...bench[1]], {}, { after: /stack up/ });

      expect(run.lines.find((l) => l.includes('removed leftovers of earlier runs'))).toContain(old.database);
      listed = new Set(await admin.listTopics());
      const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname = ANY($1)`, [
        [old.database, young.database],
      ]);
      expect({
        topics: [old.topic, young.topic].filter((t) => listed.has(t)),
        databases: rows.map((r) => r.datname),
      }).toEqual({
        topics: [young.topic],
        databases: [young.database],
      });
      await expectNothingLeft(run, 'bench');
    } finally {
      await admin.deleteTopics({ topics: [young.topic] }).catch(() => undefined);
      await client.query(`DROP DATABASE IF EXISTS "${young.database}"`);
      await Promise.all([admin.disconnect(), client.end()]);
    }
  }, 180_000);

  it('when the bench gets SIGINT with its services up, then it exits 130 and leaves nothing', async () => {
    const run = await runTool(bench[0], [...bench[1]], {}, { after: /stack up/ });
    expectExit(run, 130);
    expect(run.exitAfterSigintMs).toBeLessThan(EXIT_AFTER_SIGINT_MS);
    expect(run.quietBeforeExitMs).toBeLessThan(EXIT_AFTER_LAST_LINE_MS);
    await expectNothingLeft(run, 'bench');
  }, 180_000);

  it('when the bench is killed (SIGKILL) with its services up, then its watchdog stops them', async () => {
    const run = await runTool(bench[0], [...bench[1]], {}, { after: /stack up/, signal: 'SIGKILL' });
    const prefix = prefixOf(run);
    try {
      const deadline = Date.now() + 20_000;
      while (processesLeft(run, prefix).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      expect(processesLeft(run, prefix)).toEqual([]);
    } finally {
      await removeLeftovers(prefix, 'bench', run.pid);
    }
  }, 180_000);

  it('when a one-scenario fault run ends, then it exits 0 at once and leaves nothing', async () => {
    const run = await runTool(faults[0], [...faults[1]], oneScenario);
    expectExit(run, 0);
    expect(run.quietBeforeExitMs).toBeLessThan(EXIT_AFTER_LAST_LINE_MS);
    await expectNothingLeft(run, 'faults');
  }, 180_000);

  it('when the fault run gets SIGINT while its services start, then it exits 130 and leaves nothing', async () => {
    const run = await runTool(faults[0], [...faults[1]], oneScenario, {
      after: / topic\(s\) under faults/,
      delayMs: 3_000,
    });
    expectExit(run, 130);
    expect(run.exitAfterSigintMs).toBeLessThan(EXIT_AFTER_SIGINT_MS);
    await expectNothingLeft(run, 'faults');
  }, 180_000);
});
