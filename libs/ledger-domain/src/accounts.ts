/**
 * The chart of accounts (docs/ledger.md). A shop's accounts hold what the service owes the shop and
 * never go below zero; the service's own accounts (provider clearing, fee revenue, FX, adjustments) may.
 */
export const ShopAccountKinds = ['pending', 'available', 'reserved', 'suspense', 'receivable'] as const;
export type ShopAccountKind = (typeof ShopAccountKinds)[number];

/** The shop accounts that can never be negative (a CHECK constraint in the schema says the same). */
export const NON_NEGATIVE: readonly ShopAccountKind[] = ['pending', 'available', 'reserved', 'suspense'];

export type AccountRef =
  | { owner: 'shop'; shopId: string; kind: ShopAccountKind; currency: string }
  | { owner: 'clearing'; provider: string; currency: string }
  | { owner: 'fee_revenue'; currency: string }
  | { owner: 'fx'; currency: string }
  /** The counterpart of operators' manual adjustments (decision 308): negative while we credited more than we debited. */
  | { owner: 'adjustments'; currency: string };

/** The account's one key: unique, sortable (rows are locked in key order, so never in a cycle). */
export function accountKey(a: AccountRef): string {
  switch (a.owner) {
    case 'shop':
      return `shop:${a.shopId.toLowerCase()}:${a.kind}:${a.currency}`;
    case 'clearing':
      return `clearing:${a.provider}:${a.currency}`;
    case 'fee_revenue':
      return `fee_revenue:${a.currency}`;
    case 'fx':
      return `fx:${a.currency}`;
    case 'adjustments':
      return `adjustments:${a.currency}`;
  }
}

export const shopAccount = (shopId: string, kind: ShopAccountKind, currency: string): AccountRef => ({
  owner: 'shop',
  shopId,
  kind,
  currency,
});

export function mustStayNonNegative(a: AccountRef): boolean {
  return a.owner === 'shop' && NON_NEGATIVE.includes(a.kind);
}
