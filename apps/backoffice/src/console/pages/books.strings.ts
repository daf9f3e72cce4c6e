/** A delay in the largest whole unit that fits it: `1 day`, `36 hours`, `90 minutes`, `45 seconds`. */
function duration(seconds: number): string {
  const [n, unit] =
    seconds % 86400 === 0
      ? [seconds / 86400, 'day']
      : seconds % 3600 === 0
        ? [seconds / 3600, 'hour']
        : seconds % 60 === 0
          ? [seconds / 60, 'minute']
          : [seconds, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** The console's texts of the books (balances, statements, adjustments, fees, settlement, rates); part of `en`. */
export const booksEn = {
  title: 'Books',
  intro: 'A shop’s balances, ledger transactions and fees; the rates the books convert at.',
  shopId: 'Shop id',
  open: 'Open the shop’s books',
  badShopId: 'A shop id is a UUID, like 6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30.',
  shopTitle: 'Books of shop',
  feesLink: 'Fees and settlement delay',
  booksLink: 'Balances and transactions',
  ordersLink: 'Orders',
  balances: 'Balances',
  noBalances: 'No money was ever booked for this shop.',
  currency: 'Currency',
  available: 'Available',
  pending: 'Pending',
  reserved: 'Reserved',
  owed: 'Owed',
  owedHint:
    'Owed: what the shop owes us in that currency (a P2P fee or a refund its available balance could not cover). It is paid first from the shop’s next settlements, before they reach available.',
  transactions: 'Ledger transactions',
  noTransactions: 'No ledger transaction yet.',
  older: 'Older transactions',
  newest: 'Newest transactions',
  created: 'Created',
  kind: 'Kind',
  source: 'Source',
  gross: 'Gross',
  fee: 'Fee',
  net: 'Net',
  amount: 'Balance moved',
  rate: 'Rate',
  availableOn: 'Available on',
  kinds: {
    order_completed: 'Order completed',
    order_refunded: 'Order refunded',
    settlement: 'Settlement',
    payout_reserved: 'Payout reserved',
    payout_posted: 'Payout posted',
    payout_voided: 'Payout voided',
    refund_reserved: 'Refund reserved',
    refund_voided: 'Refund voided',
    manual_adjustment: 'Manual adjustment',
    suspense_converted: 'Converted from suspense',
    p2p_fee: 'P2P fee',
  } as Record<string, string>,
  awaitingRate: 'awaiting a rate',
  repaid: (amount: string, currency: string) => `repaid debt ${amount} ${currency}`,
  settledCredits: (n: number) => (n === 1 ? '1 credit' : `${n} credits`),
  adjustedBy: (name: string, reason: string) => `by ${name}: ${reason}`,
  adjust: {
    title: 'Manual adjustment',
    intro:
      'Credits (a positive amount) or debits (a negative amount) the shop’s available balance. A debit the available balance cannot cover is refused and nothing is posted. Every adjustment is kept with its reason and audited.',
    currency: 'Currency (USD, USDT-TRC20)',
    amount: 'Amount (signed: 25.00 or -10.50)',
    reason: 'Reason (required)',
    submit: 'Post the adjustment',
    adminOnly: 'Only an admin can post a manual adjustment.',
  },
  fees: {
    title: 'Fees',
    intro:
      'A fee is a percent of the amount plus a fixed part, at least the minimum, per method and currency. Method * applies to the methods without a line of their own; an operation with no line is charged no fee.',
    none: 'No fee line: this shop is charged no fee.',
    method: 'Method',
    percent: 'Percent',
    fixed: 'Fixed',
    minimum: 'Minimum',
    updated: 'Changed',
    remove: 'Delete',
    removeReason: 'Reason to delete',
    set: 'Set a fee line',
    setHint: 'Replaces the line of the same method and currency.',
    reason: 'Reason (required)',
    submit: 'Set the fee',
  },
  settlement: {
    title: 'Settlement delay',
    intro: 'How long a credit stays pending before it is available. It applies to credits booked from now on.',
    current: (seconds: number, isDefault: boolean) =>
      `${seconds === 0 ? 'None: credits are available at once' : `${seconds} seconds (${duration(seconds)})`}${isDefault ? ', the default: never set' : ''}`,
    seconds: 'Seconds (0: at once; 86400: a day)',
    reason: 'Reason (required)',
    submit: 'Set the delay',
  },
  rates: {
    title: 'Rates',
    intro:
      'A completion converts at the latest rate of its pair that started by its time and has not ended. Rates are added, never changed.',
    none: 'No rate yet.',
    pair: 'Pair',
    rate: 'Rate',
    source: 'Source',
    validFrom: 'Valid from',
    validTo: 'Valid to',
    open: 'open',
    add: 'Add a rate',
    base: 'Base (converted from)',
    quote: 'Quote (converted to)',
    value: 'Rate (1 base = rate quote)',
    from: 'Valid from (UTC, ISO 8601)',
    to: 'Valid to (optional)',
    reason: 'Reason (required)',
    submit: 'Add the rate',
  },
  viewerOnly: 'You can read these; changing them needs the operator role.',
  awaiting: {
    title: 'Credits waiting for a rate',
    intro:
      'A completion whose pair had no rate waits in the shop’s suspense, in the order currency; it is converted once the pair has a rate. A parked credit is left alone: fix what its reason says, then release it and the next conversion converts it (or parks it again with the new error).',
    none: 'No credit waits for a rate.',
    count: (shown: number, total: number) =>
      shown < total ? `The ${shown} oldest of ${total} waiting.` : `${total} waiting.`,
    shop: 'Shop',
    order: 'Order',
    completed: 'Completed',
    amount: 'In suspense',
    convertsTo: 'Converts to',
    status: 'Status',
    waiting: 'Waiting for a rate',
    noCurrency: 'Never converted: its balance currency was not recorded',
    parkedLabel: 'Parked',
    since: (at: string) => `since ${at}`,
    release: 'Release',
    releaseReason: 'What was fixed',
    adminOnly: 'Only an admin can release a parked credit.',
  },
};
