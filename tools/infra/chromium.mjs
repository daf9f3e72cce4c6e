#!/usr/bin/env node
// Chromium, for the tests that drive the hosted pages and the operators' console in a real
// headless browser (puppeteer-core: no browser is downloaded, the machine's own is used).
//
//   node tools/infra/chromium.mjs   # print the executable (installing Debian's chromium if missing)
//
// As a module:
//   import { ensureChromium } from './tools/infra/chromium.mjs';
//   const executable = ensureChromium({ log });   // pass to the tests as CHROMIUM_PATH
//
// Resolution order:
//   1. CHROMIUM_PATH, when it names a working browser
//   2. chromium, chromium-browser, google-chrome on PATH
//   3. Debian's `chromium` package, installed with apt-get (after `apt-get update`), as root:
//      unlike promtool it needs its shared libraries, so it cannot be unpacked beside the repo.
import { spawnSync } from 'node:child_process';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The path of a browser that answers `--version`, or undefined. */
function working(bin) {
  if (!bin) return undefined;
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  if (r.status !== 0 || !/chrom/i.test(r.stdout)) return undefined;
  const where = spawnSync('sh', ['-c', `command -v "${bin}"`], { encoding: 'utf8' }).stdout.trim();
  return where || bin;
}

function found() {
  return working(process.env.CHROMIUM_PATH) ?? CANDIDATES.map(working).find(Boolean);
}

export function ensureChromium({ log = console.log } = {}) {
  const existing = found();
  if (existing) return existing;
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).error)
    throw new Error(
      'Chromium is missing and this is not a Debian-like machine: install Chromium, or set CHROMIUM_PATH',
    );
  if (process.getuid?.() !== 0)
    throw new Error('Chromium is missing: run `apt-get update && apt-get install chromium` as root once');
  log("Chromium is missing: installing Debian's chromium package (apt-get, about a minute)…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-dejavu-core'], {
      stdio: 'ignore',
      env,
    }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    if (!install()) throw new Error('apt-get install chromium failed: install Chromium yourself, or set CHROMIUM_PATH');
  }
  const installed = found();
  if (!installed) throw new Error('apt-get installed chromium, but no working chromium is on PATH');
  return installed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(ensureChromium({ log: (...a) => console.error(...a) }));
}
