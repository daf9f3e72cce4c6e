import { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase, uniqueName } from '@payments/testing';
import { PaymentsMetrics } from '@payments/platform';
import { dispatchQueueDdl, DispatchQueue } from './dispatch-queue';
import { DispatchHandler, ProviderDispatcher } from './provider-dispatcher';

/** What PostgreSQL says when every connection slot is taken (SQLSTATE 53300). */
function tooManyClients(): Error {
  return Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
}

describe('provider dispatcher against PostgreSQL: recording the answer', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  const dispatchers: ProviderDispatcher[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url, entities: [], logging: false });
    await ds.initialize();
  });

  afterAll(async () => {
    for (const d of dispatchers) await d.stop().catch(() => undefined);
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  /** A queue of its own, one aggregate waiting, and a dispatcher whose handler fails `failures` records. */
  async function aDispatcher(failures: () => Error | undefined) {
    const schema = uniqueName('pd_');
    await ds.query(`CREATE SCHEMA "${schema}"`);
    await ds.query(`CREATE TABLE "${schema}".things (id uuid PRIMARY KEY, status text NOT NULL)`);
    const table = {
      schema,
      table: 'dispatches',
      idColumn: 'dispatch_id',
      referenceColumn: 'thing_id',
      aggregateTable: 'things',
    };
    for (const ddl of dispatchQueueDdl(table)) await ds.query(ddl);
    const queue = new DispatchQueue(ds, table);
    const sends: string[] = [];
    const records: string[] = [];
    const handler: DispatchHandler = {
      shouldSend: () => true,
      send: async (row) => {
        sends.push(row.dispatchId);
        return { kind: 'accepted', providerPaymentId: `prov_${row.dispatchId}` };
      },
      record: async (m, row) => {
        const failure = failures();
        records.push(failure ? 'failed' : 'recorded');
        if (failure) throw failure;
        await m.query(`UPDATE "${schema}".things SET status = 'in_progress' WHERE id = $1`, [row.referenceId]);
        return { kind: 'finish', status: 'accepted', summary: 'accepted' };
      },
    };
    // The retries' warnings are what this test provokes; errors are kept for it to read.
    const errors: string[] = [];
    const logger: LoggerService = {
      log: () => undefined,
      warn: () => undefined,
      error: (m: string) => void errors.push(m),
    };
    const dispatcher = new ProviderDispatcher({
      name: 'spec dispatcher',
      kind: 'payment',
      dataSource: ds,
      databaseUrl: db.url,
      queue,
      handler,
      clock: { now: () => new Date() },
      policy: { maxSends: 3, backoffMs: 100, maxBackoffMs: 1000 },
      providerTimeoutMs: 8000,
      options: { autoStart: false, pollIntervalMs: 60_000, batchSize: 4, instanceId: 'spec' },
      logger,
    });
    dispatchers.push(dispatcher);
    const thingId = randomUUID();
    await ds.query(`INSERT INTO "${schema}".things (id, status) VALUES ($1, 'registered')`, [thingId]);
    await ds.transaction((m) =>
      queue.enqueue(
        m,
        {
          dispatchId: `d_${thingId}`,
          referenceId: thingId,
          provider: 'sandbox',
          amount: '1.00',
          currency: 'USD',
          tokenStandard: null,
        },
        new Date(),
      ),
    );
    const state = async () =>
      (
        await ds.query(
          `SELECT d.status, d.sends, d.claim_token, t.status AS thing FROM "${schema}".dispatches d JOIN "${schema}".things t ON t.id = d.thing_id`,
        )
      )[0];
    return { dispatcher, sends, records, errors, state };
  }

  it('when the database has no free connection for the first two tries, then the answer is recorded on the third, at once, and the provider is asked once', async () => {
    let failuresLeft = 2;
    const h = await aDispatcher(() => (failuresLeft-- > 0 ? tooManyClients() : undefined));
    // dispatchDue() returns when the send is recorded: by this same send, not after its lease.
    await h.dispatcher.dispatchDue();
    expect(await h.state()).toMatchObject({ status: 'accepted', sends: 1, claim_token: null, thing: 'in_progress' });
    expect(h.sends).toHaveLength(1);
    expect(h.records).toEqual(['failed', 'failed', 'recorded']);
  });

  it('when a send is answered, then it is counted by provider, kind and outcome, and its duration observed', async () => {
    const count = async () =>
      (await PaymentsMetrics.providerSends.get()).values.find(
        (v) => v.labels.provider === 'sandbox' && v.labels.kind === 'payment' && v.labels.outcome === 'accepted',
      )?.value ?? 0;
    const observed = async () =>
      (await PaymentsMetrics.providerSendDuration.get()).values.find(
        (v) =>
          v.metricName === 'payments_provider_send_duration_seconds_count' &&
          v.labels.provider === 'sandbox' &&
          v.labels.kind === 'payment',
      )?.value ?? 0;
    const [before, durationsBefore] = [await count(), await observed()];
    const h = await aDispatcher(() => undefined);
    await h.dispatcher.dispatchDue();
    expect(h.sends).toHaveLength(1);
    expect(await count()).toBe(before + 1);
    expect(await observed()).toBe(durationsBefore + 1);
  });

  it('when recording fails for a reason that is not the infrastructure, then it is not retried: the row stays claimed until its lease ends', async () => {
    const h = await aDispatcher(() => new Error('a bug in the handler'));
    await h.dispatcher.dispatchDue();
    expect(h.records).toEqual(['failed']);
    expect(await h.state()).toMatchObject({
      status: 'pending',
      sends: 1,
      claim_token: expect.any(String),
      thing: 'registered',
    });
    expect(h.errors).toEqual([expect.stringContaining('a bug in the handler')]);
  });
});
