import { Init1763700000000 } from './1763700000000-init';
import { OrderDetails1763800000000 } from './1763800000000-order-details';
import { ProviderDispatch1763900000000 } from './1763900000000-provider-dispatch';
import { ShopSettingsTimeoutsCustomers1764000000000 } from './1764000000000-shop-settings-timeouts-customers';
import { Refunds1764100000000 } from './1764100000000-refunds';
import { OrderCallbackUrl1764200000000 } from './1764200000000-order-callback-url';
import { NeedActionExplanation1764317200000 } from './1764317200000-need-action-explanation';
import { OperatorOrderList1765100000002 } from './1765100000002-operator-order-list';
import { HostedPage1765200000000 } from './1765200000000-hosted-page';
import { OpsViews1766100000000 } from './1766100000000-ops-views';
import { ResolvedBy1766200000301 } from './1766200000301-resolved-by';
import { ShopRoutes1766200000320 } from './1766200000320-shop-routes';
import { ProviderSends1766300000329 } from './1766300000329-provider-sends';
import { DispatchMayHaveReached1766300000343 } from './1766300000343-dispatch-may-have-reached';
import { PaidReplacedAttempts1766300001343 } from './1766300001343-paid-replaced-attempts';
import { OpsOrdersResolved1766300002343 } from './1766300002343-ops-orders-resolved';

/** The orders schema's migrations in order: the service runs them at start, its specs on their own databases. */
export const ORDERS_MIGRATIONS = [
  Init1763700000000,
  OrderDetails1763800000000,
  ProviderDispatch1763900000000,
  ShopSettingsTimeoutsCustomers1764000000000,
  Refunds1764100000000,
  OrderCallbackUrl1764200000000,
  NeedActionExplanation1764317200000,
  OperatorOrderList1765100000002,
  HostedPage1765200000000,
  OpsViews1766100000000,
  ResolvedBy1766200000301,
  ShopRoutes1766200000320,
  ProviderSends1766300000329,
  DispatchMayHaveReached1766300000343,
  PaidReplacedAttempts1766300001343,
  OpsOrdersResolved1766300002343,
];
