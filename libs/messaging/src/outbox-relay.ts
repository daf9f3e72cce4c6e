import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Client, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { CompressionTypes, Producer } from 'kafkajs';
import { PaymentsMetrics } from '@payments/platform';
import type { Failpoint, KafkaConfig } from '@payments/platform';
import { freshClientCheck } from './broker-probe';
import { ProducerHealth } from './client-health';
import { byTopic, createKafka, producerConfig, prefixed } from './kafka';
import { outboxChannel } from './outbox';
import { NotifiedWorker } from './notified-worker';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  databaseUrl: string;
  schema: string;
  kafka: KafkaConfig;
  batchSize?: number;
  /**
   * How long a busy relay waits before it reads when its last batch was not full, so rows
   * committed meanwhile go out in the same produce request and the same mark (default 10 ms).
   * Busy: it published less than ten lingers ago; after a quiet spell it reads at once.
   */
  lingerMs?: number;
  /** Poll even without a NOTIFY, in case one was missed (e.g. LISTEN connection lost). */
  pollIntervalMs?: number;
  /** Published rows are kept this long for inspection, then purged. */
  retainPublishedMs?: number;
  /** Test hook: runs after the batch went to Kafka and before it is marked published. */
  afterPublish?: (ids: string[]) => Promise<void> | void;
  /** The fault suite's `outbox-after-publish` failpoint; undefined (off) outside it. */
  failpoint?: Failpoint;
  /** HEALTH_STALL_MS: see ProducerHealth. */
  stallMs?: number;
  /**
   * False where the outbox stands in front of an HTTP API (the gateway, callbacks-ingest): while the
   * broker is away the API keeps taking requests into the outbox, so a stalled relay shows as
   * degraded and does not take the service out of traffic.
   */
  affectsReadiness?: boolean;
}

/** publishBatch's answer when another relay of the service holds the publishing lock. */
const LOCKED_OUT = -1;
/** See OutboxRelayOptions.lingerMs. */
const DEFAULT_LINGER_MS = 10;
/** A relay is busy while its last batch went out less than this many lingers ago. */
const BUSY_WINDOW_LINGERS = 10;
/** How soon a locked-out relay looks again. */
const LOCKED_OUT_RETRY_MS = 25;
/** The transaction-local setting that carries the publishing lock's answer to the read. */
const LOCKED_SETTING = 'payments_outbox.locked';

interface Row {
  id: string;
  topic: string;
  key: string;
  /** The envelope as PostgreSQL prints it: the message value as it is. */
  envelope: string;
  headers: Record<string, string>;
  /** Only for `*.status_changed` events (null otherwise): what the transition counter needs. */
  type: string | null;
  status: string | null;
  status_code: string | null;
}

/**
 * Publishes outbox rows in id order. Only one relay of a service publishes at a time (an
 * advisory lock per batch, taken before the batch is read), so several instances never reorder
 * one aggregate's events nor publish a row twice. A crash between publishing and marking
 * republishes the batch: consumers are idempotent by eventId.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private readonly lockKey: bigint;
  private producer?: Producer;
  /** Whether its sends get through: a send kafkajs keeps retrying past the stall bound makes the service not ready. */
  readonly health: ProducerHealth;
  private readonly worker: NotifiedWorker;
  private lastPurge = 0;
  private publishedRows = 0;
  private lockedOut = false;
  private lastFull = false;
  private lastPublishedAt = 0;
  private client?: Client;
  /** Rounds of this process one at a time (the worker's and drain()'s share one connection). */
  private serial: Promise<unknown> = Promise.resolve();
  private readonly selectSql: string;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.health = new ProducerHealth('kafka-producer:outbox', {
      stallMs: opts.stallMs,
      freshClient: freshClientCheck(opts.kafka),
      affectsReadiness: opts.affectsReadiness ?? true,
    });
    this.lockKey = BigInt.asIntN(
      64,
      BigInt('0x' + createHash('sha256').update(`outbox:${opts.schema}`).digest('hex').slice(0, 16)),
    );
    const batchSize = Math.max(1, Math.floor(opts.batchSize ?? 500));
    // The lock first, then the read, as two statements: in READ COMMITTED each statement reads a
    // snapshot taken when it starts, and a read in the lock's own statement would read one taken
    // before the lock was, in which the batch another relay marked and committed just before
    // releasing the lock is still unpublished: both would publish it (decision 347). The lock's
    // answer reaches the read through a transaction-local setting; locked out, nothing is read.
    // Read committed explicitly, whatever the database's default. One simple-protocol query: one
    // round trip. Only constants are spliced in.
    this.selectSql = `BEGIN ISOLATION LEVEL READ COMMITTED;
      SELECT set_config('${LOCKED_SETTING}', pg_try_advisory_xact_lock(${this.lockKey.toString()})::text, true)::boolean AS locked;
      SELECT id, topic, key, envelope::text AS envelope, headers,
             CASE WHEN t.counted THEN t.type END AS type,
             CASE WHEN t.counted AND jsonb_typeof(t.payload->'status') = 'string'
                  THEN t.payload->>'status' END AS status,
             CASE WHEN t.counted AND jsonb_typeof(t.payload->'statusCode') = 'string'
                  THEN t.payload->>'statusCode' END AS status_code
        FROM "${opts.schema}".outbox,
             LATERAL (SELECT envelope->>'type' AS type, envelope->'payload' AS payload,
                             right(envelope->>'type', 15) = '.status_changed' AS counted) t
       WHERE current_setting('${LOCKED_SETTING}')::boolean AND published_at IS NULL
       ORDER BY id LIMIT ${batchSize}`;
    this.worker = new NotifiedWorker({
      name: 'publishing',
      databaseUrl: opts.databaseUrl,
      channel: outboxChannel(opts.schema),
      round: async () => {
        // Busy (a batch went out moments ago and did not fill it): wait a little, so rows
        // committed meanwhile join this one. After a quiet spell the first row goes at once.
        const linger = opts.lingerMs ?? DEFAULT_LINGER_MS;
        const busy = Date.now() - this.lastPublishedAt < linger * BUSY_WINDOW_LINGERS;
        if (linger > 0 && busy && !this.lastFull) await new Promise((r) => setTimeout(r, linger));
        const n = await this.publishBatch();
        if (n > 0) this.lastPublishedAt = Date.now();
        this.lockedOut = n === LOCKED_OUT;
        this.lastFull = n >= batchSize;
        if (this.lockedOut) return false;
        await this.purge();
        return this.lastFull;
      },
      // Locked out: another instance is publishing, and rows this process committed meanwhile may
      // not be in its batch (it was not woken for them), so look again shortly, not at the poll
      // (or at once, when woken meanwhile).
      idleDelayMs: () => (this.lockedOut ? LOCKED_OUT_RETRY_MS : (opts.pollIntervalMs ?? 500)),
      logger: this.logger,
    });
  }

  async start(): Promise<void> {
    // Idempotent: a hybrid Nest app runs bootstrap hooks once per part, and a second producer
    // would be left connected after stop().
    if (this.producer) return;
    this.producer = createKafka(this.opts.kafka, '-relay').producer(producerConfig(this.opts.kafka));
    await this.producer.connect();
    await this.worker.start();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await this.serial;
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = undefined;
    this.dropConnection();
  }

  /** Publishes everything pending now; used by tests and at shutdown. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      if (n === LOCKED_OUT) {
        await new Promise((r) => setTimeout(r, LOCKED_OUT_RETRY_MS));
        continue;
      }
      total += n;
      if (n === 0) return total;
    }
  }

  /**
   * One round, in two round trips to PostgreSQL on the relay's own connection: `BEGIN`, the
   * publishing lock and the batch in one; then, once the broker acknowledged the whole batch (one
   * produce request, acks from all replicas), the mark and `COMMIT` in one. A failed produce rolls
   * back: nothing of the batch is marked, and the next round sends it again.
   */
  private publishBatch(): Promise<number> {
    const round = this.serial.then(() => this.publishOnce());
    this.serial = round.catch(() => undefined);
    return round;
  }

  private async publishOnce(): Promise<number> {
    const producer = this.producer;
    if (!producer) throw new Error('relay not started');
    const client = await this.connection();
    let open = false;
    try {
      open = true;
      const results = (await client.query(this.selectSql)) as unknown as [
        QueryResult,
        QueryResult<{ locked: boolean }>,
        QueryResult<Row>,
      ];
      if (!results[1].rows[0].locked) {
        open = false;
        await client.query('ROLLBACK');
        return LOCKED_OUT;
      }
      const rows = results[2].rows;
      if (rows.length === 0) {
        open = false;
        await client.query('COMMIT');
        return 0;
      }
      // In id order, so within each topic (and each key) too. The envelope goes out as PostgreSQL
      // prints it: consumers parse it, so the bytes need not be JSON.stringify's.
      const sends = rows.map((row) => ({
        topic: prefixed(this.opts.kafka, row.topic),
        messages: [{ key: row.key, value: row.envelope, headers: row.headers }],
      }));
      const topicMessages = byTopic(sends);
      await this.health.track(
        producer.sendBatch({ topicMessages, acks: -1, compression: CompressionTypes.None }),
        topicMessages.map((t) => t.topic),
      );
      const ids = rows.map((r) => r.id);
      await this.opts.afterPublish?.(ids);
      this.publishedRows += rows.length;
      // The crash the fault suite needs: on the broker, not marked; the restarted relay republishes.
      if (this.opts.failpoint?.name === 'outbox-after-publish' && this.publishedRows >= this.opts.failpoint.afterRows) {
        this.logger.warn(
          `failpoint outbox-after-publish: outbox ids ${ids.join(',')} are on the broker and not marked; SIGKILL`,
        );
        process.kill(process.pid, 'SIGKILL');
      }
      // Ids are bigints PostgreSQL just answered (digits only), so they can be written into the
      // statement: the mark and the commit then go in one simple-protocol round trip.
      await client.query(
        `UPDATE "${this.opts.schema}".outbox SET published_at = now() WHERE id = ANY('{${ids.join(',')}}'::bigint[]); COMMIT`,
      );
      open = false;
      countStatusTransitions(rows);
      return rows.length;
    } catch (err) {
      if (open) await client.query('ROLLBACK').catch(() => this.dropConnection());
      throw err;
    }
  }

  /** The relay's own connection (not the service's pool, not TypeORM's), opened when first needed. */
  private async connection(): Promise<Client> {
    if (this.client) return this.client;
    // Named in pg_stat_activity (a name in the URL wins).
    const client = new Client({
      connectionString: this.opts.databaseUrl,
      application_name: `${this.opts.schema} outbox relay`,
      keepAlive: true,
    });
    // A connection lost between rounds: the next round opens a new one.
    client.on('error', () => this.dropConnection(client));
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    return client;
  }

  private dropConnection(client = this.client): void {
    if (!client) return;
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
  }

  private async purge(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    const retainMs = this.opts.retainPublishedMs ?? 3_600_000;
    await this.opts.dataSource.query(
      `DELETE FROM "${this.opts.schema}".outbox WHERE published_at IS NOT NULL AND published_at < now() - ($1 || ' milliseconds')::interval`,
      [String(retainMs)],
    );
  }
}

/**
 * Every status change of an order, payout or P2P transaction leaves through an outbox as a
 * `<entity>.status_changed` event: counting them here, once they are published, counts each
 * change once for the whole system, whichever service or instance made it. (A relay that dies
 * between publishing and marking publishes its batch again, and counts it again: rare, and an
 * over-count of a rate is harmless.)
 */
function countStatusTransitions(rows: Row[]): void {
  for (const { type, status, status_code } of rows) {
    if (type === null || status === null) continue;
    PaymentsMetrics.statusTransitions.inc({
      entity: type.slice(0, type.indexOf('.')),
      status,
      status_code: status_code ?? 'none',
    });
  }
}
