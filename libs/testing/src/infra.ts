import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { healthTopicSpec, replyTopicSpecs, topicSpecs } from '@payments/contracts';
import { createTopicsAndWait } from '@payments/messaging';

// The `unit` jest project starts no infrastructure: a test that reaches for it belongs in `component`.
const NEEDS_INFRA =
  'run the tests with `npm test`, and name a test that needs Kafka or PostgreSQL *.component.spec.ts ' +
  '(the jest project `component` makes sure both run)';

export function testBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error(`KAFKA_BROKERS is not set; ${NEEDS_INFRA}`);
  return brokers.split(',');
}

export function adminDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error(`DATABASE_URL is not set; ${NEEDS_INFRA}`);
  return url;
}

export function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A throwaway database of its own for one test file: created empty, dropped at the end. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = uniqueName('pt_');
  const admin = new Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return {
    url: withDatabase(adminDatabaseUrl(), name),
    drop: async () => {
      const c = new Client({ connectionString: adminDatabaseUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testKafka(clientId = 'test'): Kafka {
  return new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.ERROR });
}

/** Creates every contract topic, reply topic and the health topic under a prefix of its own, so test files never see each other's messages. */
export async function createTestTopics(prefix: string): Promise<{ deleteAll(): Promise<void> }> {
  const admin = testKafka('test-admin').admin();
  await admin.connect();
  const specs = [...topicSpecs(prefix), ...replyTopicSpecs(prefix), healthTopicSpec(prefix)];
  await createTopicsAndWait(
    admin,
    specs.map((s) => ({
      topic: s.name,
      numPartitions: Math.min(s.partitions, 4),
      replicationFactor: 1,
      configEntries: Object.entries(s.config ?? {}).map(([name, value]) => ({ name, value })),
    })),
  );
  await admin.disconnect();
  return {
    deleteAll: async () => {
      const a = testKafka('test-admin').admin();
      await a.connect();
      const existing = await a.listTopics();
      const mine = existing.filter((t) => t.startsWith(prefix));
      if (mine.length > 0) await a.deleteTopics({ topics: mine }).catch(() => undefined);
      await a.disconnect();
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
