// `node tools/bench/ledger-idempotency.mjs`: what the ledger's guard against a redelivered batch
// costs PostgreSQL, two ways (issue 29 "Cost", ARCHITECTURE.md section 2, decision 271): an inbox
// row per event (`Inbox.processBatch`: one multi-row INSERT … ON CONFLICT DO NOTHING of the batch's
// event ids, the ledger's way today) against the consumed offset kept in the ledger's own table
// (one upsert of the partition's next offset, only forward). Each is the one statement that differs
// between the two designs, in the transaction a batch is booked in; the booking itself is the same
// either way and is left out. Runs on a database of its own on the machine's PostgreSQL, which it
// removes; prints PostgreSQL's CPU (its backends', from /proc) and the bytes written per event.
//
//   IDEMPOTENCY_BATCH=10      events per batch          IDEMPOTENCY_CLIENTS=4   partitions booked at once
//   IDEMPOTENCY_EVENTS=40000  events per variant
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { ensureInfra, logger } from '../stack/common.mjs';
import { createDatabase } from '../infra/postgres.mjs';
import { removeScratch, scratchNames } from '../infra/scratch.mjs';
import { cpuDelta, cpuSnapshot } from './cpu.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const log = logger('bench:idempotency', 1);
const BATCH = Number(process.env.IDEMPOTENCY_BATCH ?? 10);
const CLIENTS = Number(process.env.IDEMPOTENCY_CLIENTS ?? 4);
const EVENTS = Number(process.env.IDEMPOTENCY_EVENTS ?? 40_000);

const VARIANTS = {
  /** The ledger today: the batch's event ids claimed in the inbox, a row each. */
  inbox: {
    ddl: `CREATE TABLE inbox (consumer text NOT NULL, event_id uuid NOT NULL,
            processed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (consumer, event_id))`,
    table: 'inbox',
    /** @param {import('pg').Client} c @param {number} _partition @param {number} _offset */
    claim: (c, _partition, _offset) =>
      c.query(
        `INSERT INTO inbox (consumer, event_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id`,
        ['ledger', Array.from({ length: BATCH }, () => randomUUID())],
      ),
  },
  /** The alternative: the partition's next offset, moved only forward; a redelivered batch finds it past. */
  offsets: {
    ddl: `CREATE TABLE consumed_offsets (consumer text NOT NULL, topic text NOT NULL, partition int NOT NULL,
            next_offset bigint NOT NULL, PRIMARY KEY (consumer, topic, partition))`,
    table: 'consumed_offsets',
    /** @param {import('pg').Client} c @param {number} partition @param {number} offset */
    claim: (c, partition, offset) =>
      c.query(
        `INSERT INTO consumed_offsets (consumer, topic, partition, next_offset) VALUES ('ledger', 'orders.events', $1, $2)
         ON CONFLICT (consumer, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset
         WHERE consumed_offsets.next_offset < EXCLUDED.next_offset RETURNING next_offset`,
        [partition, offset + BATCH],
      ),
  },
};

/**
 * @param {string} dbUrl
 * @param {string} dbName
 * @param {keyof typeof VARIANTS} name
 */
async function measure(dbUrl, dbName, name) {
  const v = VARIANTS[name];
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new Client({ connectionString: dbUrl });
      await c.connect();
      return c;
    }),
  );
  try {
    await clients[0].query(v.ddl);
    const batches = Math.ceil(EVENTS / BATCH / CLIENTS);
    const walBefore = (await clients[0].query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
    const before = cpuSnapshot([], { pgDatabase: dbName });
    const t0 = process.hrtime.bigint();
    await Promise.all(
      clients.map(async (c, partition) => {
        for (let b = 0; b < batches; b++) {
          await c.query('BEGIN');
          await v.claim(c, partition, b * BATCH);
          await c.query('COMMIT');
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = cpuDelta(before, cpuSnapshot([], { pgDatabase: dbName }));
    const events = batches * BATCH * CLIENTS;
    const wal = await clients[0].query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS bytes', [
      walBefore,
    ]);
    const size = await clients[0].query('SELECT pg_total_relation_size($1) AS bytes', [v.table]);
    return {
      name,
      events,
      perSecond: events / seconds,
      pgUsPerEvent: (cpu.postgres * 1000) / events,
      walBytesPerEvent: Number(wal.rows[0].bytes) / events,
      tableBytesPerEvent: Number(size.rows[0].bytes) / events,
    };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

const infra = await ensureInfra();
const { prefix, database } = scratchNames('bench');
const dbUrl = await createDatabase(infra.env.DATABASE_URL, database);
try {
  log(`${EVENTS} events per variant, batches of ${BATCH}, ${CLIENTS} partitions at once; database ${database}`);
  for (const name of /** @type {(keyof typeof VARIANTS)[]} */ (['inbox', 'offsets', 'inbox', 'offsets'])) {
    const r = await measure(dbUrl, database, name);
    log(
      `${r.name}: ${r.events} events, ${r.perSecond.toFixed(0)} events/s; PostgreSQL CPU ${r.pgUsPerEvent.toFixed(1)} µs per event; WAL ${r.walBytesPerEvent.toFixed(0)} B per event; table and index ${r.tableBytesPerEvent.toFixed(1)} B per event`,
    );
    // The next round starts on an empty table.
    const c = new Client({ connectionString: dbUrl });
    await c.connect();
    await c.query(`DROP TABLE ${VARIANTS[r.name].table}`);
    await c.end();
  }
} finally {
  await removeScratch({ databaseUrl: infra.env.DATABASE_URL, prefix, database });
  await infra.stop();
}
