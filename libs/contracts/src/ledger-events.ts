import { z } from 'zod';
import { balanceTransactionView } from './ledger';
import { decimal, uuid } from './schema';
import type { TopicContract } from './catalog';
import { Topics } from './topics';

/** Message types on `ledger.events` (decision 313). */
export const LedgerEventTypes = { balanceChanged: 'ledger.balance_changed' } as const;

/** A signed decimal string: what a balance moved by (`-9.98`, `97.0056`). */
export const signedDecimal = () =>
  z.string().regex(/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/, { error: 'must be a signed decimal string' });

/** A ledger transaction as a balance event names it. */
const transactionRef = z.object({
  id: uuid(),
  kind: balanceTransactionView.shape.kind,
  source: balanceTransactionView.shape.source,
  amount: signedDecimal().describe("What the shop's balance moved by, in `currency`"),
});

export const balanceChanged = z
  .object({
    shopId: uuid(),
    currency: z.string().describe('With its token standard: USD, USDT-TRC20'),
    available: decimal().describe('After the transactions'),
    pending: decimal().describe('After the transactions'),
    reserved: decimal().describe('After the transactions'),
    owed: decimal()
      .optional()
      .describe(
        'What the shop owes in this currency after the transactions, as GET /balance shows it (decisions 345, 348); absent only in messages from before decision 348',
      ),
    transaction: transactionRef.describe(
      'The last ledger transaction that moved it, as GET /balance/transactions lists it',
    ),
    transactions: z
      .array(transactionRef)
      .min(1)
      .optional()
      .describe(
        'Every ledger transaction of this database transaction that moved this balance, in posting order, the last being `transaction` (decision 339: one event per shop, currency and ledger batch); absent in messages from before it, where it is `[transaction]`',
      ),
  })
  .describe(
    "ledger.events, keyed by shopId: a shop's available, pending, reserved or owed balance in one currency changed, once per ledger database transaction (decisions 339, 348); merchant-callbacks shows it on the shop's events feed",
  );
export type BalanceChanged = z.infer<typeof balanceChanged>;

/** The topic's entry in the catalogue (catalog.ts), kept beside its schema. */
export const ledgerEventsContract: TopicContract = {
  topic: Topics.ledgerEvents,
  description:
    "Every change of a shop's available, pending, reserved or owed balance, in commit order per shop (decisions 313, 348); merchant-callbacks shows them on the shop's events feed, never as callbacks.",
  key: 'The shop id: all balance changes of a shop stay in order on one partition',
  keySchema: uuid(),
  publishedBy: ['ledger'],
  consumedBy: ['merchant-callbacks'],
  messages: [
    {
      type: LedgerEventTypes.balanceChanged,
      summary: "A shop's balance in one currency changed",
      payload: balanceChanged,
    },
  ],
};
