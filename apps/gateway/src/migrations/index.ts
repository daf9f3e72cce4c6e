import { Init1763700000000 } from './1763700000000-init';
import { ShopSettings1764000000000 } from './1764000000000-shop-settings';
import { IdempotencyAndKeyUse1764200000000 } from './1764200000000-idempotency-and-key-use';
import { PreviousCallbackSecret1764900000002 } from './1764900000002-previous-callback-secret';
import { HostedIntegration1765200000001 } from './1765200000001-hosted-integration';
import { PayoutViaPaymentPage1765300000001 } from './1765300000001-payout-via-payment-page';
import { IdempotencyCardTokens1765400000001 } from './1765400000001-idempotency-card-tokens';
import { OpsViews1766100000000 } from './1766100000000-ops-views';
import { ProviderAccounts1766200000000 } from './1766200000000-provider-accounts';

/** The gateway schema's migrations in order: the service runs them at start, specs on their own databases. */
export const GATEWAY_MIGRATIONS = [
  Init1763700000000,
  ShopSettings1764000000000,
  IdempotencyAndKeyUse1764200000000,
  PreviousCallbackSecret1764900000002,
  HostedIntegration1765200000001,
  PayoutViaPaymentPage1765300000001,
  IdempotencyCardTokens1765400000001,
  OpsViews1766100000000,
  ProviderAccounts1766200000000,
];
