import { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase, uniqueName } from '@payments/testing';
import { PaymentsMetrics } from '@payments/platform';
import type { ProviderAnswer } from './provider-answer';
import { dispatchQueueDdl, DispatchQueue } from './dispatch-queue';
import { dispatchSendsDdl } from './dispatch-sends';
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

  /**
   * A queue of its own, one aggregate waiting, and a dispatcher whose handler fails `failures`
   * records; the provider gives `answers` in turn (accepted once they run out), an unavailable one
   * retried.
   */
  async function aDispatcher(
    failures: () => Error | undefined,
    answers: ProviderAnswer[] = [],
    afterCommit?: () => void,
  ) {
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
    for (const ddl of [...dispatchQueueDdl(table), ...dispatchSendsDdl(schema, table.table)]) await ds.query(ddl);
    const queue = new DispatchQueue(ds, table);
    let shiftMs = 0;
    const later = () => (shiftMs += 60_000);
    const sends: string[] = [];
    const records: string[] = [];
    const handler: DispatchHandler = {
      shouldSend: () => true,
      send: async (row) => {
        sends.push(row.dispatchId);
        return answers.shift() ?? { kind: 'accepted', providerPaymentId: `prov_${row.dispatchId}` };
      },
      record: async (m, row, answer) => {
        const failure = failures();
        records.push(failure ? 'failed' : 'recorded');
        if (failure) throw failure;
        if (answer.kind === 'unavailable') return { kind: 'retry' };
        await m.query(`UPDATE "${schema}".things SET status = 'in_progress' WHERE id = $1`, [row.referenceId]);
        return { kind: 'finish', status: 'accepted', summary: 'accepted', ...(afterCommit ? { afterCommit } : {}) };
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
      // Moved on by `later()`: a retry falls due without waiting for it.
      clock: { now: () => new Date(Date.now() + shiftMs) },
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
    const sendColumns = async () =>
      (
        await ds.query(
          `SELECT send_answers, send_ms, last_sent_at, last_error_at FROM "${schema}".dispatches WHERE thing_id = $1`,
          [thingId],
        )
      )[0] as { send_answers: string[]; send_ms: number[]; last_sent_at: Date | null; last_error_at: Date | null };
    return { dispatcher, sends, records, errors, state, later, sendColumns };
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

  it('when a record asks for work after commit, then it runs once, after the row is committed, and not for a rolled-back try', async () => {
    const seen: Promise<unknown>[] = [];
    let failuresLeft = 1;
    let read: () => Promise<unknown> = async () => undefined;
    const h = await aDispatcher(
      () => (failuresLeft-- > 0 ? tooManyClients() : undefined),
      [],
      () => void seen.push(read()),
    );
    read = h.state;
    await h.dispatcher.dispatchDue();
    expect(h.records).toEqual(['failed', 'recorded']);
    expect(seen).toHaveLength(1);
    // Read on another connection: only a committed row reads accepted.
    expect(await seen[0]).toMatchObject({ status: 'accepted', thing: 'in_progress' });
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

  it('when a send is unavailable and the next accepted, then the row keeps both answers and durations, in order, and the error time (decision 329)', async () => {
    const h = await aDispatcher(() => undefined, [{ kind: 'unavailable', reason: 'HTTP 503' }]);
    expect(await h.sendColumns()).toEqual({ send_answers: [], send_ms: [], last_sent_at: null, last_error_at: null });
    await h.dispatcher.dispatchDue();
    const afterRetry = await h.sendColumns();
    expect(afterRetry).toMatchObject({ send_answers: ['unavailable'], send_ms: [expect.any(Number)] });
    expect(afterRetry.last_error_at).toEqual(afterRetry.last_sent_at);
    h.later();
    await h.dispatcher.dispatchDue();
    expect(await h.state()).toMatchObject({ status: 'accepted', sends: 2 });
    const done = await h.sendColumns();
    expect(done.send_answers).toEqual(['unavailable', 'accepted']);
    expect(done.send_ms).toHaveLength(2);
    expect(done.send_ms.every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    // The accepted send moved the row's last send on, not its last error.
    expect(done.last_error_at).toEqual(afterRetry.last_error_at);
    expect(done.last_sent_at!.getTime()).toBeGreaterThan(afterRetry.last_sent_at!.getTime());
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
