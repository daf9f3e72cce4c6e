import { ShopSettingsSnapshot } from '@payments/contracts';
import { cancelledOrderExample, orderExample } from '@payments/merchant-admin';
import { statusOf } from '@payments/status-codes';

/** Examples of the operator API in the OpenAPI document. */
const COMPANY_ID = '2e1d0c9b-8a7f-4e6d-9c5b-4a3f2e1d0c9b';
const SHOP_ID = orderExample.shopId;

export const createCompanyExample = { name: 'Demo Company', useCustomerDataAsPayer: false };
export const companyExample = { id: COMPANY_ID, name: 'Demo Company', useCustomerDataAsPayer: false };
export const companySettingsExample = { useCustomerDataAsPayer: true };

export const createShopExample = { name: 'Demo Shop', callbackUrl: 'https://merchant.example.com/payments/callback' };
export const createdShopExample = {
  id: SHOP_ID,
  companyId: COMPANY_ID,
  name: 'Demo Shop',
  callbackUrl: 'https://merchant.example.com/payments/callback',
  apiKey: 'sk_shown-once-store-it-safely-0000000000000000000',
  callbackSecret: 'whsec_shown-once-store-it-safely-000000000000000',
};

export const shopSettingsExample: ShopSettingsSnapshot = {
  shopId: SHOP_ID,
  companyId: COMPANY_ID,
  version: 2,
  shopName: 'Demo Shop',
  amountDeviation: { lowerPercent: '2', upperPercent: '5' },
  autoFinalizeNeedAction: true,
  processingTimeout: { defaultSeconds: 604800, byPaymentSetting: { bank_transfer: 1209600 } },
  useCustomerDataAsPayer: false,
  callbackUrl: 'https://merchant.example.com/payments/callback',
  defaultIntegration: 'hosted',
  redirectDomains: ['merchant.example.com'],
  payoutViaPaymentPage: true,
};

export const updateShopSettingsExample = {
  amountDeviation: { lowerPercent: '2', upperPercent: '5' },
  defaultIntegration: 'hosted',
  redirectDomains: ['merchant.example.com'],
  payoutViaPaymentPage: true,
  autoFinalizeNeedAction: true,
  processingTimeout: { byPaymentSetting: { bank_transfer: 1209600 } },
};

export const resolveOrderExample = { action: 'fail', note: 'Confirmed with the acquirer' };
export const resolvedOrderExample = { ...cancelledOrderExample, status: 'failed', ...statusOf('1-07-03') };
