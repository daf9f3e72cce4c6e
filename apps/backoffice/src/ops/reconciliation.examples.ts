/** Examples of the operator reconciliation route in the OpenAPI document. */
export const breachesExample = {
  lastRun: {
    startedAt: '2026-11-24T10:00:00.000Z',
    finishedAt: '2026-11-24T10:00:02.431Z',
    durationMs: 2431,
    checked: {
      refunds_within_accepted: 312,
      final_status_called_back: 10450,
      provider_callback_applied: 11210,
      outbox_not_stuck: 5,
      attempt_answered: 10488,
      daily_totals_match: 96,
      replaced_attempt_paid: 10412,
      ledger_transaction_unbalanced: 48210,
      ledger_balance_differs_from_postings: 1204,
      ledger_balance_below_zero: 1204,
      ledger_order_credited_twice: 10450,
      ledger_credit_settled_twice: 10380,
      ledger_suspense_unqueued: 0,
      ledger_order_credited: 10450,
      ledger_refund_debited: 312,
      ledger_payout_hold_finished: 2210,
      ledger_awaiting_rate: 0,
    },
    breaches: 1,
  },
  breaches: [
    {
      invariant: 'refunds_within_accepted',
      subject: 'orders.orders 0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21',
      detail: '2 refund(s) add up to 120.00 USD, more than the accepted 100.00 USD',
      since: '2026-11-23T17:41:09.000Z',
      firstSeenAt: '2026-11-24T09:55:00.000Z',
      lastSeenAt: '2026-11-24T10:00:00.000Z',
    },
  ],
};
