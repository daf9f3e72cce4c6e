import { Init1763700000000 } from './1763700000000-init';
import { ReceivedAtIndex1765000000000 } from './1765000000000-received-at-index';
import { ClickTransactions1766000000000 } from './1766000000000-click-transactions';
import { PaymeTransactions1766000000001 } from './1766000000001-payme-transactions';
import { OpsViews1766100000000 } from './1766100000000-ops-views';
import { ShopProviderAccounts1766200000000 } from './1766200000000-shop-provider-accounts';

/** The callbacks_ingest schema's migrations in order: the service runs them at start, specs on their own databases. */
export const CALLBACKS_INGEST_MIGRATIONS = [
  Init1763700000000,
  ReceivedAtIndex1765000000000,
  ClickTransactions1766000000000,
  PaymeTransactions1766000000001,
  OpsViews1766100000000,
  ShopProviderAccounts1766200000000,
];
