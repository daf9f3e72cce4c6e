/** Something wrong with the books, named so an operator can find it. */
export interface BooksFinding {
  check: 'transaction_unbalanced' | 'balance_differs_from_postings' | 'balance_below_zero';
  subject: string;
  detail: string;
}

type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The books' invariants (issue 29, "checked continuously and by npm run reconcile"): postings sum
 * to zero per transaction and currency, every account's balance is the sum of its postings, and no
 * account that must not go negative is. No rows means the books are sound. The reconciliation
 * will run it; today the tests do.
 */
export async function checkBooks(query: Query, schema: string): Promise<BooksFinding[]> {
  const s = `"${schema}"`;
  const unbalanced = await query(
    `SELECT transaction_id::text AS subject, currency, sum(amount)::text AS total FROM ${s}.postings
     GROUP BY transaction_id, currency HAVING sum(amount) <> 0`,
  );
  const differs = await query(
    `SELECT a.key AS subject, a.balance::text AS balance, coalesce(sum(p.amount), 0)::text AS posted
     FROM ${s}.accounts a LEFT JOIN ${s}.postings p ON p.account_key = a.key
     GROUP BY a.key, a.balance HAVING a.balance <> coalesce(sum(p.amount), 0)`,
  );
  const negative = await query(
    `SELECT key AS subject, balance::text AS balance FROM ${s}.accounts
     WHERE kind IN ('pending', 'available', 'reserved', 'suspense') AND balance < 0`,
  );
  return [
    ...unbalanced.map((r) => ({
      check: 'transaction_unbalanced' as const,
      subject: String(r.subject),
      detail: `postings in ${String(r.currency)} sum to ${String(r.total)}`,
    })),
    ...differs.map((r) => ({
      check: 'balance_differs_from_postings' as const,
      subject: String(r.subject),
      detail: `balance ${String(r.balance)}, postings ${String(r.posted)}`,
    })),
    ...negative.map((r) => ({
      check: 'balance_below_zero' as const,
      subject: String(r.subject),
      detail: `balance ${String(r.balance)}`,
    })),
  ];
}
