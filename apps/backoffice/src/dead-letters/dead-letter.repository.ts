import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Envelope } from '@payments/contracts';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';

export const DeadLetterStatuses = ['open', 'redriven', 'discarded'] as const;
export type DeadLetterStatus = (typeof DeadLetterStatuses)[number];

export interface DeadLetterView {
  id: string;
  topic: string;
  originalTopic: string;
  partition: number;
  offset: string;
  key: string | null;
  eventId: string | null;
  type: string | null;
  error: string;
  consumerGroup: string | null;
  attempts: number;
  deadLetteredAt: string;
  status: DeadLetterStatus;
  /** Whether it can be sent back: only a message that was a valid envelope. */
  redrivable: boolean;
  resolvedAt: string | null;
  resolvedBy: string | null;
  reason: string | null;
}

export interface NewDeadLetter {
  topic: string;
  partition: number;
  offset: string;
  originalTopic: string;
  key: string | null;
  envelope: Envelope | null;
  raw: string | null;
  error: string;
  consumerGroup: string | null;
  attempts: number;
  deadLetteredAt: Date;
}

export interface DeadLetterRow {
  id: string;
  topic: string;
  original_topic: string;
  partition: number;
  offset: string;
  key: string | null;
  envelope: Envelope | null;
  error: string;
  consumer_group: string | null;
  attempts: number;
  dead_lettered_at: Date;
  status: DeadLetterStatus;
  resolved_at: Date | null;
  resolved_by: string | null;
  reason: string | null;
}

function view(r: DeadLetterRow): DeadLetterView {
  return {
    id: String(r.id),
    topic: r.topic,
    originalTopic: r.original_topic,
    partition: r.partition,
    offset: r.offset,
    key: r.key,
    eventId: r.envelope?.eventId ?? null,
    type: r.envelope?.type ?? null,
    error: r.error,
    consumerGroup: r.consumer_group,
    attempts: r.attempts,
    deadLetteredAt: r.dead_lettered_at.toISOString(),
    status: r.status,
    redrivable: r.envelope !== null,
    resolvedAt: r.resolved_at?.toISOString() ?? null,
    resolvedBy: r.resolved_by,
    reason: r.reason,
  };
}

const COLUMNS = `id, topic, original_topic, partition, "offset", key, envelope, error, consumer_group, attempts,
  dead_lettered_at, status, resolved_at, resolved_by, reason`;

@Injectable()
export class DeadLetterRepository {
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_CONFIG) config: BackofficeConfig,
  ) {
    this.s = config.schema;
  }

  /** A dead letter read again (a restarted collector) is kept once: topic, partition and offset name it. */
  async record(d: NewDeadLetter): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "${this.s}".dead_letters (topic, partition, "offset", original_topic, key, envelope, raw, error, consumer_group, attempts, dead_lettered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (topic, partition, "offset") DO NOTHING`,
      [
        d.topic,
        d.partition,
        d.offset,
        d.originalTopic,
        d.key,
        d.envelope ? JSON.stringify(d.envelope) : null,
        d.raw,
        d.error,
        d.consumerGroup,
        d.attempts,
        d.deadLetteredAt,
      ],
    );
  }

  async list(f: { topic?: string; status?: DeadLetterStatus; cursor?: string; limit: number }) {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      args.push(v);
      where.push(sql.replace('?', `$${args.length}`));
    };
    if (f.topic) add('topic = ?', f.topic);
    if (f.status) add('status = ?', f.status);
    if (f.cursor) add('id < ?', f.cursor);
    args.push(f.limit + 1);
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "${this.s}".dead_letters ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
    const page = rows.slice(0, f.limit);
    return {
      items: page.map(view),
      nextCursor: rows.length > f.limit ? String(page[page.length - 1].id) : null,
    };
  }

  async get(id: string): Promise<DeadLetterView | undefined> {
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "${this.s}".dead_letters WHERE id = $1`,
      [id],
    );
    return rows[0] && view(rows[0]);
  }

  /** Locks the rows for the rest of the transaction: one decision per dead letter. */
  async forUpdate(m: EntityManager, ids: string[]): Promise<DeadLetterRow[]> {
    return m.query(
      `SELECT ${COLUMNS} FROM "${this.s}".dead_letters WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`,
      [ids],
    );
  }

  async resolve(
    m: EntityManager,
    id: string,
    status: DeadLetterStatus,
    by: string,
    reason: string | null,
  ): Promise<DeadLetterView> {
    const [rows]: [DeadLetterRow[], number] = await m.query(
      `UPDATE "${this.s}".dead_letters SET status = $2, resolved_at = now(), resolved_by = $3, reason = $4
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status, by, reason],
    );
    return view(rows[0]);
  }

  static view = view;
}
