/** The books' own invariants, one name each (the `check` label of payments_ledger_books_violations). */
export const BOOKS_CHECKS = [
  'transaction_unbalanced',
  'balance_differs_from_postings',
  'balance_below_zero',
  'order_credited_twice',
  'credit_settled_twice',
  'suspense_unqueued',
] as const;
export type BooksCheck = (typeof BOOKS_CHECKS)[number];

/** Something wrong with the books, named so an operator can find it. */
export interface BooksFinding {
  check: BooksCheck;
  subject: string;
  detail: string;
  /** When what is wrong was booked, where the books know it. */
  since?: Date;
}

/** One check: how many things it looked at, and what it found wrong. */
export interface BooksCheckResult {
  check: BooksCheck;
  checked: number;
  findings: BooksFinding[];
}

/** Runs one statement, answers its rows: a pg client, a pool or a TypeORM manager. */
export type BooksQuery = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The books' invariants (issue 29, "checked continuously and by npm run reconcile"; decision 306):
 * postings sum to zero per transaction and currency, every account's balance is the sum of its
 * postings, no account that must not go negative is, no order is credited twice, no credit is
 * settled twice (decision 351: in two settlements' lists, or one list and a settlement from before
 * that named it as its source), and no money sits
 * in a shop's suspense without a credit of that shop and currency queued for a rate (decision 304). They read
 * the ledger's operator views (`<schema>.ops_*`, decision 300), so the ledger's own monitor and
 * the backoffice's reconciliation (through its read-only role) run the same statements.
 */
export async function runBooksChecks(query: BooksQuery, schema: string): Promise<BooksCheckResult[]> {
  const s = `"${schema.replace(/"/g, '')}"`;
  const [counts] = await query(
    `SELECT (SELECT count(*) FROM ${s}.ops_transactions)::int AS transactions,
            (SELECT count(*) FROM ${s}.ops_accounts)::int AS accounts,
            (SELECT count(*) FROM ${s}.ops_transactions WHERE kind = 'order_completed')::int AS credits,
            (SELECT coalesce(sum(coalesce(cardinality(settled_credits), 1)), 0) FROM ${s}.ops_transactions
              WHERE kind = 'settlement')::int AS settled,
            (SELECT count(*) FROM ${s}.ops_accounts WHERE kind = 'suspense' AND balance > 0)::int AS suspense`,
  );
  const unbalanced = await query(
    `WITH bad AS (SELECT transaction_id, currency, sum(amount) AS total FROM ${s}.ops_postings
                  GROUP BY transaction_id, currency HAVING sum(amount) <> 0)
     SELECT bad.transaction_id::text AS subject, bad.currency, bad.total::text AS total, t.kind, t.created_at AS since
       FROM bad LEFT JOIN ${s}.ops_transactions t ON t.id = bad.transaction_id`,
  );
  const differs = await query(
    `SELECT a.key AS subject, a.balance::text AS balance, coalesce(p.posted, 0)::text AS posted
       FROM ${s}.ops_accounts a
       LEFT JOIN (SELECT account_key, sum(amount) AS posted FROM ${s}.ops_postings GROUP BY account_key) p
         ON p.account_key = a.key
      WHERE a.balance <> coalesce(p.posted, 0)`,
  );
  const negative = await query(
    `SELECT key AS subject, balance::text AS balance FROM ${s}.ops_accounts
     WHERE kind IN ('pending', 'available', 'reserved', 'suspense') AND balance < 0`,
  );
  const twice = await query(
    `SELECT source_id AS subject, count(*)::int AS n, min(created_at) AS since FROM ${s}.ops_transactions
      WHERE kind = 'order_completed' GROUP BY source_id HAVING count(*) > 1`,
  );
  const settledTwice = await query(
    `SELECT credit AS subject, count(*)::int AS n, min(created_at) AS since FROM (
       SELECT coalesce(c::text, t.source_id) AS credit, t.created_at FROM ${s}.ops_transactions t
         LEFT JOIN LATERAL unnest(t.settled_credits) c ON true
        WHERE t.kind = 'settlement') s
      GROUP BY credit HAVING count(*) > 1`,
  );
  // Money in a shop's suspense is always some waiting credit's (decision 304): never without its queue row.
  const unqueued = await query(
    `SELECT a.key AS subject, a.balance::text AS balance FROM ${s}.ops_accounts a
      WHERE a.kind = 'suspense' AND a.balance > 0
        AND NOT EXISTS (SELECT 1 FROM ${s}.ops_awaiting_rates w
                         WHERE a.key = 'shop:' || lower(w.shop_id::text) || ':suspense:' || w.order_currency)`,
  );
  const at = (v: unknown) => (v instanceof Date ? v : v ? new Date(String(v)) : undefined);
  return [
    {
      check: 'transaction_unbalanced',
      checked: Number(counts.transactions),
      findings: unbalanced.map((r) => ({
        check: 'transaction_unbalanced' as const,
        subject: `transaction ${String(r.subject)}`,
        detail: `${String(r.kind ?? 'unknown')}: postings in ${String(r.currency)} sum to ${String(r.total)}, not zero`,
        since: at(r.since),
      })),
    },
    {
      check: 'balance_differs_from_postings',
      checked: Number(counts.accounts),
      findings: differs.map((r) => ({
        check: 'balance_differs_from_postings' as const,
        subject: `account ${String(r.subject)}`,
        detail: `balance ${String(r.balance)}, its postings sum to ${String(r.posted)}`,
      })),
    },
    {
      check: 'balance_below_zero',
      checked: Number(counts.accounts),
      findings: negative.map((r) => ({
        check: 'balance_below_zero' as const,
        subject: `account ${String(r.subject)}`,
        detail: `balance ${String(r.balance)}, below zero`,
      })),
    },
    {
      check: 'order_credited_twice',
      checked: Number(counts.credits),
      findings: twice.map((r) => ({
        check: 'order_credited_twice' as const,
        subject: `order ${String(r.subject)}`,
        detail: `${String(r.n)} order_completed credits, not one`,
        since: at(r.since),
      })),
    },
    {
      check: 'credit_settled_twice',
      checked: Number(counts.settled),
      findings: settledTwice.map((r) => ({
        check: 'credit_settled_twice' as const,
        subject: `credit ${String(r.subject)}`,
        detail: `in ${String(r.n)} settlements, not one: its money reached available ${String(r.n)} times`,
        since: at(r.since),
      })),
    },
    {
      check: 'suspense_unqueued',
      checked: Number(counts.suspense),
      findings: unqueued.map((r) => ({
        check: 'suspense_unqueued' as const,
        subject: `account ${String(r.subject)}`,
        detail: `${String(r.balance)} in suspense but no credit of the shop in that currency is queued for a rate: it would never be converted`,
      })),
    },
  ];
}

/** Every finding of the books' checks; none means the books are sound. */
export async function checkBooks(query: BooksQuery, schema: string): Promise<BooksFinding[]> {
  return (await runBooksChecks(query, schema)).flatMap((r) => r.findings);
}
