import { Check, bool, int, obj, record, str, uuid } from './schema';

/** `shops.settings` (compacted, keyed by shop id): the whole current settings of one shop. */
export const ShopSettingsTypes = { snapshot: 'shop.settings' } as const;

export interface ShopSettingsSnapshot {
  shopId: string;
  companyId: string;
  /** Grows with every change; consumers ignore a snapshot older than the one they have. */
  version: number;
  /** Allowed deviation of a reported amount, in percent of the order amount (decimal strings). */
  amountDeviation: { lowerPercent: string; upperPercent: string };
  autoFinalizeNeedAction: boolean;
  /** Processing timeout of payment orders, and overrides per payment setting (instrument type). */
  processingTimeout: { defaultSeconds: number; byPaymentSetting: Record<string, number> };
  /** The company setting "Use customer data as payer information". */
  useCustomerDataAsPayer: boolean;
  callbackUrl: string | null;
  /**
   * Signs the shop's callbacks. `shops.settings` is an internal topic; only merchant-callbacks
   * reads the secret (`shopCallbackSettings`): this checker leaves it out, so other consumers
   * never store it. Optional: snapshots published before it existed still parse.
   */
  callbackSecret?: string;
}

export const DEFAULT_PROCESSING_TIMEOUT_SECONDS = 7 * 24 * 3600;

export const shopSettingsSnapshot: Check<ShopSettingsSnapshot> = obj({
  shopId: uuid(),
  companyId: uuid(),
  version: int(),
  amountDeviation: obj({ lowerPercent: str(), upperPercent: str() }),
  autoFinalizeNeedAction: bool(),
  processingTimeout: obj({ defaultSeconds: int(), byPaymentSetting: record() }) as Check<
    ShopSettingsSnapshot['processingTimeout']
  >,
  useCustomerDataAsPayer: bool(),
  callbackUrl: (v, p) => (v === null || v === undefined ? { ok: true, value: null } : str()(v, p)),
}) as Check<ShopSettingsSnapshot>;
