// Kafka tools, what runs the broker: the Java runtime (17+) and the broker jars, resolved with
// Maven from tools/kafka/pom.xml into tools/kafka/target/lib (resolveKafkaJars, re-exported by kafka.mjs).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_ROOT_DIR, defaultLog, kafkaPaths, readKafkaVersion } from './kafka-paths.mjs';

export function javaBin() {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

export function checkJava() {
  const r = spawnSync(javaBin(), ['-version'], { encoding: 'utf8' });
  if (r.error)
    throw new Error(`cannot run java (${r.error.message}); Kafka needs a Java 17+ runtime on PATH or JAVA_HOME`);
  const m = (r.stderr || '').match(/version "(\d+)(?:\.(\d+))?/);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN;
  if (!(major >= 17)) throw new Error(`Kafka 4.x needs Java 17+, found: ${(r.stderr || '').split('\n')[0]}`);
}

function pomHash(paths) {
  return createHash('sha256').update(fs.readFileSync(paths.pom)).digest('hex').slice(0, 16);
}

function libUpToDate(paths, version) {
  try {
    const stamp = JSON.parse(fs.readFileSync(paths.stampFile, 'utf8'));
    return (
      stamp.version === version &&
      stamp.pom === pomHash(paths) &&
      fs.existsSync(path.join(paths.libDir, `kafka_2.13-${version}.jar`))
    );
  } catch {
    return false;
  }
}

/** Resolve the broker jars into tools/kafka/target/lib unless already there for this version/pom. */
/** @param {{ rootDir?: string, log?: (msg: string) => void, force?: boolean }} [opts] */
export async function resolveKafkaJars({ rootDir = DEFAULT_ROOT_DIR, log = defaultLog, force = false } = {}) {
  const paths = kafkaPaths(rootDir);
  const version = readKafkaVersion(rootDir);
  if (!force && libUpToDate(paths, version)) return { version, libDir: paths.libDir, resolved: false };

  const tmpLib = `${paths.libDir}.tmp-${process.pid}`;
  fs.rmSync(tmpLib, { recursive: true, force: true });
  log(`resolving Kafka ${version} jars with Maven (missing, or built for another version/pom) ...`);
  const t0 = Date.now();
  const env = { ...process.env };
  if (!env.MAVEN_OPTS) env.MAVEN_OPTS = '-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1';
  const args = ['-q', '-B', '-f', paths.pom, `-Dkafka.lib.dir=${tmpLib}`, 'dependency:copy-dependencies'];
  const code = await new Promise((resolve, reject) => {
    const child = spawn('mvn', args, { cwd: paths.toolsDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => reject(new Error(`cannot run mvn (${e.message}); Maven 3.8+ must be on PATH`)));
    child.on('close', (c) => {
      if (c !== 0) log(`mvn output:\n${out.replace(/\x1b\[[0-9;]*m/g, '')}`);
      resolve(c);
    });
  });
  if (code !== 0) {
    fs.rmSync(tmpLib, { recursive: true, force: true });
    throw new Error(`mvn dependency:copy-dependencies failed (exit ${code}) for Kafka ${version}`);
  }
  if (!fs.existsSync(path.join(tmpLib, `kafka_2.13-${version}.jar`))) {
    throw new Error(`mvn finished but ${tmpLib} has no kafka_2.13-${version}.jar`);
  }
  fs.writeFileSync(
    path.join(tmpLib, '.resolved'),
    JSON.stringify({ version, pom: pomHash(paths), at: new Date().toISOString() }) + '\n',
  );
  // swap in atomically-ish: never leave a lib dir with jars of two versions on the classpath
  const oldLib = `${paths.libDir}.old-${process.pid}`;
  if (fs.existsSync(paths.libDir)) fs.renameSync(paths.libDir, oldLib);
  fs.renameSync(tmpLib, paths.libDir);
  fs.rmSync(oldLib, { recursive: true, force: true });
  log(`resolved Kafka ${version} jars in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { version, libDir: paths.libDir, resolved: true };
}
