// `node tools/stack/infra.mjs env`  — make sure Kafka and PostgreSQL run; print KAFKA_BROKERS=… and DATABASE_URL=…
// `node tools/stack/infra.mjs down` — stop the local broker and embedded PostgreSQL started by these scripts.
import { ensureInfra, ROOT } from './common.mjs';

const cmd = process.argv[2] ?? 'env';
if (cmd === 'env') {
  // stdout carries only the variables; progress goes to stderr.
  console.log = (...args) => console.error(...args);
  const infra = await ensureInfra();
  for (const [k, v] of Object.entries(infra.env)) process.stdout.write(`${k}=${v}\n`);
} else if (cmd === 'down') {
  const { stopKafka } = await import('../infra/kafka.mjs');
  const { stopEmbeddedPostgres } = await import('../infra/postgres.mjs');
  await stopKafka({ rootDir: ROOT });
  await stopEmbeddedPostgres({ rootDir: ROOT });
} else {
  console.error('usage: node tools/stack/infra.mjs env|down');
  process.exit(2);
}
