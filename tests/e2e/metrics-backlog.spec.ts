import { randomUUID } from 'node:crypto';
import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { sign } from '@payments/callback-signature';
import { generatedCardVaultEnv } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import { createTestDatabase, createTestTopics, eventually, http, testBrokers, uniqueName } from '@payments/testing';
import { scrape, valueOf } from '../support/metrics';
import { TEST_SANDBOX_SECRET } from '../support/stack';

/**
 * The outbox backlog gauges of a real service (callbacks-ingest) whose relay is held between
 * publishing a batch and marking it: the rows wait, the gauges say so, and they drain after.
 */
describe('outbox backlog metrics', () => {
  const prefix = uniqueName('t') + '.';
  let ingest: RunningCallbacksIngest;
  let dropDatabase: () => Promise<void>;
  let deleteTopics: () => Promise<void>;
  let held = false;
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    const db = await createTestDatabase();
    dropDatabase = db.drop;
    deleteTopics = (await createTestTopics(prefix)).deleteAll;
    const env = new EnvReader({
      DATABASE_URL: db.url,
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      SANDBOX_CALLBACK_SECRET: TEST_SANDBOX_SECRET,
      LOG_FORMAT: 'pretty',
      // Shops' provider accounts arrive sealed (decision 341): callbacks-ingest needs the keys to start.
      ...generatedCardVaultEnv(),
    });
    ingest = await startCallbacksIngest(loadCallbacksIngestConfig(env), 0, '127.0.0.1', {
      afterPublish: async () => {
        if (held) await gate;
      },
    });
  }, 60_000);

  afterAll(async () => {
    release();
    await ingest?.close();
    await deleteTopics?.();
    await dropDatabase?.();
  });

  const backlog = async () => {
    const { series } = await scrape(ingest.url);
    return {
      messages: valueOf(series, 'payments_outbox_messages', { service: 'callbacks_ingest' }),
      age: valueOf(series, 'payments_outbox_oldest_age_seconds', { service: 'callbacks_ingest' }),
      accepted: valueOf(series, 'payments_provider_callbacks_total', { provider: 'sandbox', result: 'accepted' }),
    };
  };

  async function sendCallback(): Promise<void> {
    const raw = JSON.stringify({
      eventId: `evt-${randomUUID()}`,
      kind: 'payment',
      reference: randomUUID(),
      status: 'success',
      amount: '1.00',
      currency: 'USD',
    });
    const res = await http('POST', `${ingest.url}/callbacks/sandbox`, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
      },
    });
    expect(res.status).toBe(200);
  }

  it('when the relay is held, then the outbox backlog and its age rise; when it is let go, then they drain to 0', async () => {
    expect(await backlog()).toEqual({ messages: 0, age: 0, accepted: undefined });
    gate = new Promise((resolve) => (release = resolve));
    held = true;
    // Each accepted callback leaves two outbox rows: the raw callback and its normalized event.
    await sendCallback();
    await sendCallback();
    const rising = await eventually(
      async () => {
        const b = await backlog();
        return b.messages === 4 && (b.age ?? 0) >= 1 ? b : undefined;
      },
      15_000,
      'four rows waiting for a second',
    );
    expect(rising.accepted).toBe(2);

    held = false;
    release();
    await eventually(
      async () => {
        const b = await backlog();
        return b.messages === 0 && b.age === 0 ? true : undefined;
      },
      15_000,
      'the backlog to drain',
    );
  }, 60_000);
});
