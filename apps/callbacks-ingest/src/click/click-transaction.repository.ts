import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ProviderEvent } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { raw, sql } from '@payments/sql';
import { ClickTransaction } from '@payments/providers/click';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';
import { providerCallbackCtes } from '../provider-callback-cte';
import { CALLBACKS_OUTBOX } from '../tokens';

interface Row {
  click_trans_id: string;
  order_id: string;
  amount: string;
  merchant_prepare_id: string;
  state: ClickTransaction['state'];
  merchant_confirm_id: string | null;
}

const COLUMNS =
  'click_trans_id::text, order_id::text, amount::text, merchant_prepare_id::text, state, merchant_confirm_id::text';

function toTransaction(r: Row): ClickTransaction {
  return {
    clickTransId: r.click_trans_id,
    orderId: r.order_id,
    amount: r.amount,
    merchantPrepareId: r.merchant_prepare_id,
    state: r.state,
    merchantConfirmId: r.merchant_confirm_id,
  };
}

/** What completing a Click transaction tells the order: the paid event, as every provider's callback does. */
export interface ClickPaid {
  event: Omit<ProviderEvent, 'receivedAt'>;
  rawBody: string;
  signTimestamp: number;
}

/** Click's transactions in callbacks-ingest's schema; SQL lives here, not in the controller. */
@Injectable()
export class ClickTransactionRepository {
  private readonly table: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CALLBACKS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
  ) {
    this.table = `"${config.schema}".click_transactions`;
  }

  /** For single statements outside a transaction. */
  manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async find(m: EntityManager, clickTransId: string, lock = false): Promise<ClickTransaction | null> {
    const rows: Row[] = await m.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE click_trans_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [clickTransId],
    );
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  /** Whether Click already completed a payment of this order (the order may not have folded it yet). */
  async orderPaidByClick(m: EntityManager, orderId: string): Promise<boolean> {
    const rows = await m.query(`SELECT 1 FROM ${this.table} WHERE order_id = $1 AND state = 'completed'`, [orderId]);
    return rows.length > 0;
  }

  /** Records a prepared transaction; a racing copy of the same Prepare finds the first one's row. */
  async insertPrepared(
    m: EntityManager,
    t: { clickTransId: string; serviceId: string; clickPaydocId: string; orderId: string; amount: string },
    now: Date,
  ): Promise<ClickTransaction> {
    await m.query(
      `INSERT INTO ${this.table} (click_trans_id, service_id, click_paydoc_id, order_id, amount, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'prepared', $6, $6) ON CONFLICT (click_trans_id) DO NOTHING`,
      [t.clickTransId, t.serviceId, t.clickPaydocId, t.orderId, t.amount, now],
    );
    return (await this.find(m, t.clickTransId))!;
  }

  async cancel(m: EntityManager, clickTransId: string, clickError: number, now: Date): Promise<void> {
    await m.query(
      `UPDATE ${this.table} SET state = 'cancelled', click_error = $2, updated_at = $3 WHERE click_trans_id = $1 AND state = 'prepared'`,
      [clickTransId, clickError, now],
    );
  }

  /**
   * Completes a prepared transaction and, in the same statement, stores Click's Complete as a
   * provider callback with its two outbox rows (raw, and the paid event): the path every
   * provider's callback takes to the order. False when another Click transaction of the order
   * completed first (the unique index), so the caller answers "already paid".
   */
  async complete(m: EntityManager, clickTransId: string, paid: ClickPaid, now: Date): Promise<boolean> {
    const stored = providerCallbackCtes(this.outbox, this.config.schema, 't', paid, now);
    await m.query('SAVEPOINT click_complete');
    try {
      const statement = sql`WITH t AS (
           UPDATE ${raw(this.table)} SET state = 'completed', merchant_confirm_id = merchant_prepare_id, updated_at = ${now}
            WHERE click_trans_id = ${clickTransId} AND state = 'prepared' RETURNING click_trans_id
         ), ${stored}
         SELECT id FROM cb`;
      await m.query(statement.text, statement.values);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await m.query('ROLLBACK TO SAVEPOINT click_complete');
      return false;
    }
    this.outbox.wake(m);
    return true;
  }
}
