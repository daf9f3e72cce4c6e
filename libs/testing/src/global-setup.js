// Makes sure a real Kafka broker and PostgreSQL are there before any test runs. `npm test` has
// already done this and exported KAFKA_BROKERS and DATABASE_URL; a bare `npx jest` does it here.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { rmSync } = require('node:fs');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '../../..');
  // A fresh record of the answers checked against the OpenAPI documents and of the messages checked
  // against the AsyncAPI document (global-teardown.js sums them).
  rmSync(path.join(root, '.run/openapi-coverage'), { recursive: true, force: true });
  rmSync(path.join(root, '.run/asyncapi-coverage'), { recursive: true, force: true });
  if (!process.env.KAFKA_BROKERS || !process.env.DATABASE_URL) {
    const out = execFileSync(process.execPath, [path.join(root, 'tools/stack/infra.mjs'), 'env'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    for (const line of out.split('\n')) {
      const m = line.match(/^([A-Z_]+)=(.*)$/);
      if (m) process.env[m[1]] = m[2];
    }
  }
  if (!process.env.KAFKA_BROKERS || !process.env.DATABASE_URL) {
    throw new Error('tests need KAFKA_BROKERS and DATABASE_URL; run them with `npm test`');
  }
};
