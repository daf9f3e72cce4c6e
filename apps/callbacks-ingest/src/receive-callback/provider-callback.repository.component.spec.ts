import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Outbox, type OutboxItem } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
import { createTestDatabase } from '@payments/testing';
import type { CallbacksIngestConfig } from '../config';
import { Init1763700000000 } from '../migrations/1763700000000-init';
import { ReceivedAtIndex1765000000000 } from '../migrations/1765000000000-received-at-index';
import { ProviderCallbackRepository, type ReceivedCallback } from './provider-callback.repository';

const SCHEMA = 'callbacks_ingest';

describe('provider callbacks are stored once, with their outbox rows, in one statement', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let repo: ProviderCallbackRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: [Init1763700000000, ReceivedAtIndex1765000000000],
    });
    repo = new ProviderCallbackRepository(ds, new Outbox(SCHEMA), { schema: SCHEMA } as CallbacksIngestConfig);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const callback = (over: Partial<ReceivedCallback> = {}): ReceivedCallback => ({
    id: randomUUID(),
    providerCode: 'sandbox',
    providerEventId: `evt-${randomUUID()}`,
    reference: randomUUID(),
    rawBody: '{"status":"success"}',
    signatureTimestamp: 1_795_000_000,
    ...over,
  });
  const events = (key: string): OutboxItem[] =>
    ['provider-callbacks.received', 'provider.events'].map((topic) => ({
      topic,
      key,
      envelope: { eventId: randomUUID(), type: topic, payload: { key } } as unknown as OutboxItem['envelope'],
    }));
  const rows = async (key: string) =>
    (await ds.query(`SELECT topic FROM ${SCHEMA}.outbox WHERE key = $1 ORDER BY id`, [key])).map(
      (r: { topic: string }) => r.topic,
    );

  it('when a callback is stored, then it and both its outbox rows are there', async () => {
    const c = callback();
    expect(await repo.storeOnce(c, events(c.reference))).toBe(true);
    expect(await rows(c.reference)).toEqual(['provider-callbacks.received', 'provider.events']);
    const [stored] = await ds.query(
      `SELECT provider_code, provider_event_id, raw_body, signature_timestamp::text AS ts FROM ${SCHEMA}.provider_callbacks WHERE id = $1`,
      [c.id],
    );
    expect(stored).toEqual({
      provider_code: 'sandbox',
      provider_event_id: c.providerEventId,
      raw_body: c.rawBody,
      ts: '1795000000',
    });
  });

  it('when the same callback comes again (same id, or same provider event), then nothing more is written', async () => {
    const c = callback();
    expect(await repo.storeOnce(c, events(c.reference))).toBe(true);
    expect(await repo.storeOnce(c, events(c.reference))).toBe(false);
    expect(await repo.storeOnce({ ...c, id: randomUUID() }, events(c.reference))).toBe(false);
    expect(await rows(c.reference)).toHaveLength(2);
  });
});
