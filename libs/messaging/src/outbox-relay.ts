import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CompressionTypes, Producer } from 'kafkajs';
import { PaymentsMetrics } from '@payments/platform';
import type { Failpoint, KafkaConfig } from '@payments/platform';
import { byTopic, createKafka, producerConfig, prefixed } from './kafka';
import { outboxChannel } from './outbox';
import { NotifiedWorker } from './notified-worker';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  databaseUrl: string;
  schema: string;
  kafka: KafkaConfig;
  batchSize?: number;
  /** Poll even without a NOTIFY, in case one was missed (e.g. LISTEN connection lost). */
  pollIntervalMs?: number;
  /** Published rows are kept this long for inspection, then purged. */
  retainPublishedMs?: number;
  /** Test hook: runs after the batch went to Kafka and before it is marked published. */
  afterPublish?: (ids: string[]) => Promise<void> | void;
  /** The fault suite's `outbox-after-publish` failpoint; undefined (off) outside it. */
  failpoint?: Failpoint;
}

/** publishBatch's answer when another relay of the service holds the publishing lock. */
const LOCKED_OUT = -1;
/** How soon a locked-out relay looks again. */
const LOCKED_OUT_RETRY_MS = 25;

interface Row {
  id: string;
  topic: string;
  key: string;
  envelope: unknown;
  headers: Record<string, string>;
}

/**
 * Publishes outbox rows in id order. Only one relay of a service publishes at a time (an
 * advisory lock per batch), so several instances never reorder one aggregate's events. A crash
 * between publishing and marking republishes the batch: consumers are idempotent by eventId.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private readonly lockKey: bigint;
  private producer?: Producer;
  private readonly worker: NotifiedWorker;
  private lastPurge = 0;
  private publishedRows = 0;
  private lockedOut = false;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.lockKey = BigInt.asIntN(
      64,
      BigInt('0x' + createHash('sha256').update(`outbox:${opts.schema}`).digest('hex').slice(0, 16)),
    );
    this.worker = new NotifiedWorker({
      name: 'publishing',
      databaseUrl: opts.databaseUrl,
      channel: outboxChannel(opts.schema),
      round: async () => {
        const n = await this.publishBatch();
        this.lockedOut = n === LOCKED_OUT;
        if (this.lockedOut) return false;
        await this.purge();
        return n >= (opts.batchSize ?? 500);
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
    this.producer = createKafka(this.opts.kafka, '-relay').producer(producerConfig());
    await this.producer.connect();
    await this.worker.start();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = undefined;
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

  private async publishBatch(): Promise<number> {
    const producer = this.producer;
    if (!producer) throw new Error('relay not started');
    const { schema } = this.opts;
    const runner = this.opts.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const [{ locked }] = await runner.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [
        this.lockKey.toString(),
      ]);
      if (!locked) {
        await runner.rollbackTransaction();
        return LOCKED_OUT;
      }
      const rows: Row[] = await runner.query(
        `SELECT id, topic, key, envelope, headers FROM "${schema}".outbox WHERE published_at IS NULL ORDER BY id LIMIT $1`,
        [this.opts.batchSize ?? 500],
      );
      if (rows.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      // In id order, so within each topic (and each key) too.
      const sends = rows.map((row) => ({
        topic: prefixed(this.opts.kafka, row.topic),
        messages: [{ key: row.key, value: JSON.stringify(row.envelope), headers: row.headers }],
      }));
      await producer.sendBatch({ topicMessages: byTopic(sends), acks: -1, compression: CompressionTypes.None });
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
      await runner.query(`UPDATE "${schema}".outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [ids]);
      await runner.commitTransaction();
      countStatusTransitions(rows);
      return rows.length;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
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
  for (const row of rows) {
    const env = row.envelope as { type?: unknown; payload?: { status?: unknown; statusCode?: unknown } };
    if (typeof env.type !== 'string' || !env.type.endsWith('.status_changed')) continue;
    const status = env.payload?.status;
    if (typeof status !== 'string') continue;
    const code = env.payload?.statusCode;
    PaymentsMetrics.statusTransitions.inc({
      entity: env.type.slice(0, env.type.indexOf('.')),
      status,
      status_code: typeof code === 'string' ? code : 'none',
    });
  }
}
