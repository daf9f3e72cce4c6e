// PostgreSQL tools, databases on a running server: connect with "pg", probe a URL, and
// CREATE / DROP DATABASE (createDatabase and dropDatabase, re-exported by postgres.mjs).

import path from 'node:path';
import { createRequire } from 'node:module';
import { sleep } from './process.mjs';
import { DEFAULT_ROOT_DIR } from './postgres-paths.mjs';

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

export function withDatabase(url, db) {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(db)}`;
  return u.toString();
}

export async function tryConnect(connectionString, rootDir, timeoutMs = 2000) {
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
