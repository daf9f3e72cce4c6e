#!/usr/bin/env node
// promtool, Prometheus' own checker, for the tests that lint every /metrics answer and the alert
// rules in k8s/monitoring (`promtool check metrics`, `promtool check rules`).
//
//   node tools/infra/promtool.mjs   # print the directory that holds promtool (installing it if missing)
//
// As a module:
//   import { ensurePromtool } from './tools/infra/promtool.mjs';
//   const dir = ensurePromtool({ rootDir, log });   // put dir on PATH; undefined when already there
//
// Resolution order:
//   1. promtool on PATH                                  -> used as is
//   2. .run/tools/prometheus/usr/bin/promtool            -> unpacked by an earlier run
//   3. Debian's `prometheus` package, downloaded with `apt-get download` (after `apt-get update`
//      when the package lists lack it, as root) and unpacked with `dpkg-deb -x` into .run/tools:
//      only the binary is used; nothing is installed system-wide, so no Prometheus daemon starts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const works = (bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0;

export function unpackedPromtoolDir(rootDir = DEFAULT_ROOT) {
  return path.join(rootDir, '.run', 'tools', 'prometheus', 'usr', 'bin');
}

export function ensurePromtool({ rootDir = DEFAULT_ROOT, log = console.log } = {}) {
  if (works('promtool')) return undefined;
  const dir = unpackedPromtoolDir(rootDir);
  if (works(path.join(dir, 'promtool'))) return dir;
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).error)
    throw new Error(
      'promtool is missing and this is not a Debian-like machine: install Prometheus (promtool) yourself',
    );
  const work = path.join(rootDir, '.run', 'tools');
  mkdirSync(work, { recursive: true });
  log("promtool is missing: unpacking it from Debian's prometheus package into .run/tools…");
  const download = () => spawnSync('apt-get', ['download', 'prometheus'], { cwd: work, stdio: 'ignore' }).status === 0;
  if (!download()) {
    if (process.getuid?.() !== 0)
      throw new Error(
        'promtool is missing: run `apt-get update && apt-get download prometheus` as root once, or install promtool',
      );
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    if (!download())
      throw new Error('apt-get download prometheus failed: install promtool (package prometheus) yourself');
  }
  const deb = readdirSync(work).find((f) => /^prometheus_.*\.deb$/.test(f));
  if (!deb) throw new Error('apt-get download prometheus left no .deb behind');
  const r = spawnSync('dpkg-deb', ['-x', deb, 'prometheus'], { cwd: work, stdio: 'inherit' });
  rmSync(path.join(work, deb), { force: true });
  if (r.status !== 0 || !works(path.join(dir, 'promtool'))) throw new Error('unpacking promtool failed');
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = ensurePromtool({ log: (...a) => console.error(...a) });
  console.log(dir ?? path.dirname(spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim()));
}
