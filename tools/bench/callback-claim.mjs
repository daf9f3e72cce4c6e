// node tools/bench/callback-claim.mjs [--no-build]: what one claim of merchant callbacks costs as
// the queue grows. On a scratch database of its own (dropped at the end) with the service's
// migrations, it fills 0, 10,000 and 100,000 waiting deliveries (generate_series: objects of three
// deliveries each, sequences 1–3, across 10 shops, all due) and times the claim the service ran
// before decision 199 (the shared WorkQueue's ordered claim over the pending rows) and the one it
// runs now (the heads of delivery_heads), each with the service's defaults (64 slots, 16 per shop),
// client-side over several runs and once more with EXPLAIN (ANALYZE, BUFFERS) in a rolled-back
// transaction; likewise the next-due-time query the idle worker runs. It prints figures and
// asserts nothing about timing. Sizes: CLAIM_BENCH_SIZES (default 0,10000,100000).
//   --no-build             dist/ is compiled already
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, ROOT } from '../stack/common.mjs';
import { createDatabase, dropDatabase, ensurePostgres } from '../infra/postgres.mjs';

const SCHEMA = 'merchant_callbacks';
const SHOPS = 10;
const LIMIT = 64;
const PER_SHOP = 16;

if (process.env.CALLBACK_CLAIM_BENCH_CHILD) {
  await measure(process.env.CALLBACK_CLAIM_BENCH_DB ?? '');
} else {
  if (!process.argv.includes('--no-build')) build();
  const adminUrl = process.env.DATABASE_URL ?? (await ensurePostgres({ rootDir: ROOT })).url;
  const name = `payments_claimbench_${Date.now().toString(36)}_${process.pid}`;
  const url = await createDatabase(adminUrl, name);
  try {
    // The service's code from dist/, its @payments/* imports resolved by tsconfig-paths.
    const child = spawnSync(process.execPath, ['-r', 'tsconfig-paths/register', new URL(import.meta.url).pathname], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        CALLBACK_CLAIM_BENCH_CHILD: '1',
        CALLBACK_CLAIM_BENCH_DB: url,
        TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.dist.json'),
      },
    });
    process.exitCode = child.status ?? 1;
  } finally {
    await dropDatabase(adminUrl, name);
  }
}

/** @param {string} url */
async function measure(url) {
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const { openServiceDatabase } = require(path.join(ROOT, 'dist/libs/platform/src/index.js'));
  const { WorkQueue } = require(path.join(ROOT, 'dist/libs/messaging/src/index.js'));
  const mc = (/** @type {string} */ p) => require(path.join(ROOT, 'dist/apps/merchant-callbacks/src', p));
  const { DeliveryRepository, deliveryChannel } = mc('deliver/delivery.repository.js');
  const migrations = mc('migrations/index.js').MERCHANT_CALLBACKS_MIGRATIONS;
  const ds = await openServiceDatabase({ url, schema: SCHEMA, entities: [], migrations });
  const repo = new DeliveryRepository(ds, { schema: SCHEMA });
  // The claim as it was: the shared work queue's ordered claim, per object in sequence order and per shop.
  const before = new WorkQueue(ds, {
    table: repo.table,
    idColumn: 'id',
    orderColumn: 'position',
    ordering: { keyColumns: ['object_type', 'object_id'], sequenceColumn: 'sequence' },
    groupColumn: 'shop_id',
    channel: deliveryChannel(SCHEMA),
  });
  const sizes = (process.env.CLAIM_BENCH_SIZES ?? '0,10000,100000').split(',').map(Number);
  /** @type {{ waiting: number; what: string; claimed: number; ms: number[]; exec: string }[]} */
  const results = [];

  // The SQL each claim sends, for EXPLAIN; the claims' own calls go through unchanged.
  /** @type {{ sql: string; params: unknown[] } | undefined} */
  let last;
  const query = ds.query.bind(ds);
  ds.query = (/** @type {string} */ sql, /** @type {unknown[]} */ params) => {
    last = { sql, params };
    return query(sql, params);
  };

  for (const waiting of sizes) {
    await fill(ds, waiting);
    const now = new Date();
    const lease = new Date(now.getTime() + 35_000);
    const claims = {
      before: () =>
        before.claim({ now, leaseUntil: lease, limit: LIMIT, perGroup: PER_SHOP, claimToken: uuid(), claimedBy: 'b' }),
      after: async () => (await repo.claimDue(now, lease, LIMIT, PER_SHOP, uuid(), 'b')).claimed,
      'next due, before': async () => [await before.nextDueAt()],
      'next due, after': async () => [await repo.nextDueAt()],
    };
    for (const [what, claim] of Object.entries(claims)) {
      const runs = waiting >= 100_000 && what === 'before' ? 3 : 10;
      const ms = [];
      let claimed = 0;
      for (let i = 0; i < runs; i++) {
        const t = process.hrtime.bigint();
        claimed = (await claim()).length;
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        await release(ds);
      }
      await claim();
      const sent = /** @type {{ sql: string; params: unknown[] }} */ (last);
      await release(ds);
      const exec = await explain(ds, sent);
      results.push({ waiting, what, claimed, ms, exec });
      console.log(
        `[claim-bench] ${String(waiting).padStart(6)} waiting, ${what.padEnd(17)}: ${claimed} taken, ` +
          `median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms over ${runs}; ${exec}`,
      );
    }
  }
  await ds.destroy();
  console.log(
    '\n| waiting deliveries | claim before, ms (median) | claim after, ms (median) | next due before / after, ms |',
  );
  console.log('|---:|---:|---:|---:|');
  for (const waiting of sizes) {
    const of = (/** @type {string} */ what) => results.find((r) => r.waiting === waiting && r.what === what);
    const m = (/** @type {string} */ what) => median(of(what)?.ms ?? [NaN]).toFixed(1);
    console.log(
      `| ${waiting.toLocaleString('en')} | ${m('before')} | ${m('after')} | ${m('next due, before')} / ${m('next due, after')} |`,
    );
  }
}

/**
 * `waiting` due deliveries: objects of three (sequence 1–3) across the shops, with their heads as
 * the migration's backfill and the consumer's insert set them.
 * @param {import('typeorm').DataSource} ds
 * @param {number} waiting
 */
async function fill(ds, waiting) {
  const s = SCHEMA;
  await ds.query(`TRUNCATE ${s}.delivery_attempts, ${s}.deliveries, ${s}.delivery_heads`);
  await ds.query(
    `INSERT INTO ${s}.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status,
       next_attempt_at, window_started_at, created_at, feed_position)
     SELECT gen_random_uuid(), gen_random_uuid(), 'order.status_changed', 'order',
            md5('object' || (g / 3))::uuid, md5('shop' || ((g / 3) % ${SHOPS}))::uuid, g % 3 + 1,
            '{"type":"order.status_changed"}', 'pending',
            now() - interval '1 minute' + g * interval '1 millisecond', now(), now(), g
       FROM generate_series(0, $1::int - 1) AS g`,
    [waiting],
  );
  await ds.query(
    `INSERT INTO ${s}.delivery_heads (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
     SELECT DISTINCT ON (object_type, object_id) object_type, object_id, id, shop_id, sequence, position, next_attempt_at
       FROM ${s}.deliveries WHERE status = 'pending' ORDER BY object_type, object_id, sequence, position`,
  );
  await ds.query(`ANALYZE ${s}.deliveries`);
  await ds.query(`ANALYZE ${s}.delivery_heads`);
}

/**
 * Gives back what a claim took (lease and token off, due again), so every run sees the same queue.
 * @param {import('typeorm').DataSource} ds
 */
async function release(ds) {
  const s = SCHEMA;
  await ds.query(
    `WITH r AS (
       UPDATE ${s}.deliveries SET claim_token = NULL, claimed_by = NULL, next_attempt_at = created_at - interval '1 minute'
        WHERE claim_token IS NOT NULL RETURNING id, next_attempt_at
     )
     UPDATE ${s}.delivery_heads h SET due_at = r.next_attempt_at FROM r WHERE h.delivery_id = r.id`,
  );
}

/**
 * The statement once more under EXPLAIN (ANALYZE, BUFFERS), rolled back: its execution time and
 * the shared buffers it touched.
 * @param {import('typeorm').DataSource} ds
 * @param {{ sql: string; params: unknown[] }} sent
 */
async function explain(ds, sent) {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('BEGIN');
    /** @type {{ 'QUERY PLAN': string }[]} */
    const plan = await runner.query(`EXPLAIN (ANALYZE, BUFFERS) ${sent.sql}`, sent.params);
    await runner.query('ROLLBACK');
    const lines = plan.map((r) => r['QUERY PLAN']);
    const exec = lines.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
    const buffers = lines.find((l) => l.trim().startsWith('Buffers:'))?.trim() ?? '';
    return `EXPLAIN ANALYZE ${exec}${buffers ? `, ${buffers}` : ''}`;
  } finally {
    await runner.release();
  }
}

function uuid() {
  return crypto.randomUUID();
}

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
