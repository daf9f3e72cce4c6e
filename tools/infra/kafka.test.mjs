// node:test — the local broker's storage formatting against Kafka's own StorageTool, from the
// Maven-resolved jars (resolved here when missing: a run that reuses a broker it did not start,
// or one given by KAFKA_BROKERS, never resolved them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_ROOT_DIR, formatStorage, kafkaPaths, resolveKafkaJars, serverProperties } from './kafka.mjs';

test('when the new cluster id starts with "-", then the storage is still formatted with it', async () => {
  await resolveKafkaJars({ log: () => undefined });
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-format-'));
  try {
    const paths = kafkaPaths(DEFAULT_ROOT_DIR, runDir);
    fs.writeFileSync(paths.propsFile, serverProperties(paths));
    // base64url of 16 random bytes: one id in 64 starts with '-', which the tool read as an option.
    const clusterId = '-phRaV-4zeZ0TMZvb3IqjA';
    assert.equal(
      formatStorage(paths, () => undefined, clusterId),
      true,
    );
    const meta = fs.readFileSync(path.join(paths.dataDir, 'meta.properties'), 'utf8');
    assert.match(meta, new RegExp(`^cluster\\.id=${clusterId}$`, 'm'));
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
});
