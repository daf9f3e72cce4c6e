import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CompressionTypes, Producer, TopicMessages } from 'kafkajs';
import type { KafkaConfig } from '@payments/platform';
import { createKafka, producerConfig, prefixed } from './kafka';
import { outboxChannel } from './outbox';
import { listenToChannel } from './pg-listen';

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
}

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
  private listener?: Client;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** Set by a NOTIFY that arrived while a batch was being published, so it is not slept through. */
  private notified = false;
  private lastPurge = 0;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.lockKey = BigInt.asIntN(64, BigInt('0x' + createHash('sha256').update(`outbox:${opts.schema}`).digest('hex').slice(0, 16)));
  }

  async start(): Promise<void> {
    this.producer = createKafka(this.opts.kafka, '-relay').producer(producerConfig());
    await this.producer.connect();
    await this.listen();
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.wake = undefined;
    await this.loop;
    await this.listener?.end().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
  }

  /** Publishes everything pending now; used by tests and at shutdown. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n === 0) return total;
    }
  }

  private async listen(): Promise<void> {
    this.listener = await listenToChannel(
      this.opts.databaseUrl,
      outboxChannel(this.opts.schema),
      {
        onNotify: () => {
          this.notified = true;
          this.wake?.();
        },
        onLost: () => (this.listener = undefined),
      },
      this.logger,
    );
  }

  private async run(): Promise<void> {
    const poll = this.opts.pollIntervalMs ?? 500;
    let backoff = 100;
    while (this.running) {
      try {
        this.notified = false;
        const n = await this.publishBatch();
        backoff = 100;
        if (!this.listener && this.running) await this.listen();
        await this.purge();
        if (n >= (this.opts.batchSize ?? 500) || this.notified) continue;
        await this.sleep(poll);
      } catch (err) {
        this.logger.warn(`publishing failed, retrying in ${backoff} ms: ${(err as Error).message}`);
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async publishBatch(): Promise<number> {
    const producer = this.producer;
    if (!producer) throw new Error('relay not started');
    const { schema } = this.opts;
    const runner = this.opts.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const [{ locked }] = await runner.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [this.lockKey.toString()]);
      if (!locked) {
        await runner.rollbackTransaction();
        return 0;
      }
      const rows: Row[] = await runner.query(
        `SELECT id, topic, key, envelope, headers FROM "${schema}".outbox WHERE published_at IS NULL ORDER BY id LIMIT $1`,
        [this.opts.batchSize ?? 500],
      );
      if (rows.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      await producer.sendBatch({ topicMessages: this.group(rows), acks: -1, compression: CompressionTypes.None });
      const ids = rows.map((r) => r.id);
      await this.opts.afterPublish?.(ids);
      await runner.query(`UPDATE "${schema}".outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [ids]);
      await runner.commitTransaction();
      return rows.length;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** Groups rows by topic keeping id order within each topic (and so within each key). */
  private group(rows: Row[]): TopicMessages[] {
    const byTopic = new Map<string, TopicMessages>();
    for (const row of rows) {
      const topic = prefixed(this.opts.kafka, row.topic);
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { topic, messages: [] }));
      entry.messages.push({ key: row.key, value: JSON.stringify(row.envelope), headers: row.headers });
    }
    return [...byTopic.values()];
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
