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
