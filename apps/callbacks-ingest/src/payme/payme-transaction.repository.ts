import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Outbox } from '@payments/messaging';
import { raw, sql } from '@payments/sql';
import { paymePaidEvent, PaymeState, PaymeTransaction } from '@payments/providers/payme';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';
import { providerCallbackCtes } from '../provider-callback-cte';
import { CALLBACKS_OUTBOX } from '../tokens';

interface Row {
  id: string;
  order_id: string;
  amount: string;
  state: number;
  payme_time: string;
  create_time: string;
  perform_time: string;
  cancel_time: string;
  reason: number | null;
}

const COLUMNS =
  'id, order_id::text, amount::text, state, payme_time::text, create_time::text, perform_time::text, cancel_time::text, reason';

const toTransaction = (r: Row): PaymeTransaction => ({
  id: r.id,
  orderId: r.order_id,
  amount: Number(r.amount),
  state: r.state as PaymeState,
  paymeTime: Number(r.payme_time),
  createTime: Number(r.create_time),
  performTime: Number(r.perform_time),
  cancelTime: Number(r.cancel_time),
  reason: r.reason,
});

/** Payme's transactions in callbacks-ingest's schema. */
@Injectable()
export class PaymeTransactionRepository {
  private readonly table: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CALLBACKS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
  ) {
    this.table = `"${config.schema}".payme_transactions`;
  }

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async find(m: EntityManager, id: string): Promise<PaymeTransaction | null> {
    const rows: Row[] = await m.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  async openForOrder(m: EntityManager, orderId: string): Promise<PaymeTransaction | null> {
    const rows: Row[] = await m.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE order_id = $1 AND state IN (1, 2)`, [
      orderId,
    ]);
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  async insert(m: EntityManager, merchantId: string, t: PaymeTransaction): Promise<void> {
    await m.query(
      `INSERT INTO ${this.table} (id, merchant_id, order_id, amount, state, payme_time, create_time) VALUES ($1, $2, $3, $4, 1, $5, $6)`,
      [t.id, merchantId, t.orderId, t.amount, t.paymeTime, t.createTime],
    );
  }

  /** A cancellation (-1, -2): the state, its time and reason. */
  async cancel(m: EntityManager, t: PaymeTransaction): Promise<void> {
    await m.query(`UPDATE ${this.table} SET state = $2, cancel_time = $3, reason = $4 WHERE id = $1`, [
      t.id,
      t.state,
      t.cancelTime,
      t.reason,
    ]);
  }

  /** Performs the transaction and stores the paid outcome as a provider callback, in one statement. */
  async perform(m: EntityManager, t: PaymeTransaction, rawBody: string, now: Date): Promise<void> {
    const stored = providerCallbackCtes(
      this.outbox,
      this.config.schema,
      't',
      {
        event: paymePaidEvent(t),
        rawBody,
        signTimestamp: Math.floor(now.getTime() / 1000),
      },
      now,
    );
    const statement = sql`WITH t AS (UPDATE ${raw(this.table)} SET state = 2, perform_time = ${t.performTime} WHERE id = ${t.id} AND state = 1 RETURNING id), ${stored} SELECT id FROM cb`;
    await m.query(statement.text, statement.values);
    this.outbox.wake(m);
  }

  async statement(merchantId: string, from: number, to: number): Promise<PaymeTransaction[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE merchant_id = $1 AND payme_time BETWEEN $2 AND $3 ORDER BY payme_time`,
      [merchantId, from, to],
    );
    return rows.map(toTransaction);
  }
}
