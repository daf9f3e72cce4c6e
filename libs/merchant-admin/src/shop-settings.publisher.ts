import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { envelope, ShopSettingsSnapshot, ShopSettingsTypes, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import { MERCHANT_ADMIN_OUTBOX } from './merchant-admin.config';
import { publicAccountIds } from './provider-accounts';
import { CompanyEntity, ShopEntity } from './shop.entity';

export function toSnapshot(shop: ShopEntity, company: CompanyEntity): ShopSettingsSnapshot {
  return {
    shopId: shop.id,
    companyId: company.id,
    version: shop.settingsVersion,
    shopName: shop.name,
    amountDeviation: {
      lowerPercent: formatAmount(shop.amountDeviationLowerPercent),
      upperPercent: formatAmount(shop.amountDeviationUpperPercent),
    },
    autoFinalizeNeedAction: shop.autoFinalizeNeedAction,
    processingTimeout: { defaultSeconds: shop.processingTimeoutSeconds, byPaymentSetting: shop.processingTimeouts },
    useCustomerDataAsPayer: company.useCustomerDataAsPayer,
    callbackUrl: shop.callbackUrl,
    defaultIntegration: shop.defaultIntegration,
    redirectDomains: shop.redirectDomains,
    payoutViaPaymentPage: shop.payoutViaPaymentPage,
    callbackSecret: shop.callbackSecret,
    ...(shop.previousCallbackSecret && shop.previousCallbackSecretExpiresAt
      ? {
          previousCallbackSecret: shop.previousCallbackSecret,
          previousCallbackSecretExpiresAt: shop.previousCallbackSecretExpiresAt.toISOString(),
        }
      : {}),
    ...(shop.providerAccounts && Object.keys(shop.providerAccounts).length > 0
      ? { providerAccounts: shop.providerAccounts, providerIds: publicAccountIds(shop.providerAccounts) }
      : {}),
  };
}

/**
 * The settings as operators read them: the callback secret is shown once, when the shop is created;
 * provider accounts have their own route, which never answers their secrets.
 */
export function withoutSecret(
  snapshot: ShopSettingsSnapshot,
): Omit<ShopSettingsSnapshot, 'callbackSecret' | 'providerAccounts' | 'providerIds'> {
  const {
    callbackSecret: _secret,
    previousCallbackSecret: _previous,
    previousCallbackSecretExpiresAt: _until,
    providerAccounts: _accounts,
    providerIds: _ids,
    ...rest
  } = snapshot;
  return rest;
}

/** Publishes a shop's whole settings on the compacted `shops.settings`, in the transaction that changed them. */
@Injectable()
export class ShopSettingsPublisher {
  constructor(@Inject(MERCHANT_ADMIN_OUTBOX) private readonly outbox: Outbox) {}

  async publish(m: EntityManager, shop: ShopEntity, company: CompanyEntity): Promise<ShopSettingsSnapshot> {
    const snapshot = toSnapshot(shop, company);
    await this.outbox.add(m, [
      {
        topic: Topics.shopsSettings,
        key: shop.id,
        envelope: envelope({ type: ShopSettingsTypes.snapshot, payload: snapshot, occurredAt: new Date() }),
      },
    ]);
    return snapshot;
  }
}
