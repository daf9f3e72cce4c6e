import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  BalanceTransactionPage,
  BalanceTransactionView,
  BalanceView,
  errorReply,
  okReply,
  Reply,
} from '@payments/contracts';
import { formatAmount } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

interface TransactionRow {
  id: string;
  kind: BalanceTransactionView['kind'];
  status: BalanceTransactionView['status'];
  source_type: BalanceTransactionView['source']['type'];
  source_id: string;
  gross: string;
  fee: string;
  net: string;
  operation_currency: string;
  balance_amount: string;
  balance_currency: string;
  rate: string | null;
  rate_source: string | null;
  rate_valid_from: Date | null;
  created_at: Date;
  available_on: Date | null;
  repaid: string | null;
  credits: number | null;
}

/** The position of a transaction in a shop's statement (newest first), as an opaque cursor. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | null {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id ?? '')) return null;
  return { createdAt, id };
}

/** What a merchant reads of its books: balances per currency, its transactions newest first. */
@Injectable()
export class BalanceReads {
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>,
  ) {
    this.s = config.schema;
  }

  async balance(shopId: string): Promise<BalanceView> {
    const rows: { currency: string; available: string; pending: string; reserved: string; owed: string }[] =
      await this.dataSource.query(
        `SELECT currency,
              coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0)::text AS available,
              coalesce(sum(balance) FILTER (WHERE kind = 'pending'), 0)::text AS pending,
              coalesce(sum(balance) FILTER (WHERE kind = 'reserved'), 0)::text AS reserved,
              -- receivable runs negative by what the shop owes (decisions 276, 312): shown as owed, positive
              (-coalesce(sum(balance) FILTER (WHERE kind = 'receivable'), 0))::text AS owed
       FROM "${this.s}".accounts a WHERE shop_id = $1 AND kind IN ('available', 'pending', 'reserved', 'receivable')
       GROUP BY currency
       -- accounts are opened ahead of the postings that may never come (locked up front): a currency
       -- the shop never had money in is not a balance
       HAVING bool_or(EXISTS (SELECT 1 FROM "${this.s}".postings p WHERE p.account_key = a.key))
       ORDER BY currency`,
        [shopId],
      );
    return {
      shopId,
      balances: rows.map((r) => ({
        currency: r.currency,
        available: formatAmount(r.available),
        pending: formatAmount(r.pending),
        reserved: formatAmount(r.reserved),
        owed: formatAmount(r.owed),
      })),
    };
  }

  async transactions(
    shopId: string,
    limit: number,
    after: { createdAt: Date; id: string } | null,
  ): Promise<{ items: BalanceTransactionView[]; nextCursor: string | null }> {
    const rows: TransactionRow[] = await this.dataSource.query(
      `SELECT id, kind, status, source_type, source_id, gross::text, fee::text, net::text, operation_currency,
              balance_amount::text, balance_currency, rate::text, rate_source, rate_valid_from, created_at, available_on,
              -- what a settlement paid of the shop's debt: its posting raising the receivable (decision 348)
              (SELECT sum(p.amount) FROM "${this.s}".postings p
                WHERE p.transaction_id = t.id AND p.amount > 0
                  AND p.account_key = 'shop:' || t.shop_id || ':receivable:' || t.balance_currency)::text AS repaid,
              cardinality(settled_credits) AS credits
       FROM "${this.s}".transactions t
       WHERE shop_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [shopId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toView),
      nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }
}

/** The page of a shop's statement after `cursor` (newest first), or the refusal of a cursor no page gave. */
export async function transactionPage(
  reads: Pick<BalanceReads, 'transactions'>,
  shopId: string,
  limit: number,
  cursor: string | undefined,
): Promise<Reply<BalanceTransactionPage>> {
  const after = cursor ? decodeCursor(cursor) : null;
  if (cursor && !after)
    return errorReply({
      code: 'invalid',
      detail: 'cursor: must be the nextCursor of a previous page',
      errors: [{ path: 'cursor', message: 'must be the nextCursor of a previous page' }],
    });
  return okReply(await reads.transactions(shopId, limit, after));
}

function toView(r: TransactionRow): BalanceTransactionView {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    source: { type: r.source_type, id: r.source_id },
    gross: formatAmount(r.gross),
    fee: formatAmount(r.fee),
    net: formatAmount(r.net),
    operationCurrency: r.operation_currency,
    amount: formatAmount(r.balance_amount),
    currency: r.balance_currency,
    ...(r.rate && r.rate_source && r.rate_valid_from
      ? { rate: { rate: formatAmount(r.rate), source: r.rate_source, validFrom: r.rate_valid_from.toISOString() } }
      : {}),
    createdAt: r.created_at.toISOString(),
    ...(r.available_on ? { availableOn: r.available_on.toISOString() } : {}),
    ...(r.repaid ? { repaid: formatAmount(r.repaid) } : {}),
    ...(r.credits ? { credits: r.credits } : {}),
  };
}
