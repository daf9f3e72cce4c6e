import { defaultDataEntryMode, MethodCurrency, MethodDefinition, MethodView } from '@payments/contracts';
import type { ResolvableMethod } from '@payments/methods-domain';
import type { MethodEntity } from './method.entity';

/** jsonb keeps keys in its own order; merchants read currency, network, then limits. */
function inOrder(c: MethodCurrency): MethodCurrency {
  return {
    currency: c.currency,
    ...(c.tokenStandard ? { tokenStandard: c.tokenStandard } : {}),
    ...(c.minAmount ? { minAmount: c.minAmount } : {}),
    ...(c.maxAmount ? { maxAmount: c.maxAmount } : {}),
  };
}

/** `walletTypes` only when there is at least one (spec 2.5); `cardBrands` only on cards. */
export function toMethodView(m: MethodEntity): MethodView {
  return {
    id: m.id,
    code: m.code,
    instrumentType: m.instrumentType,
    ...(m.instrumentType === 'card' && m.cardBrands ? { cardBrands: m.cardBrands } : {}),
    ...(m.walletTypes.length > 0 ? { walletTypes: m.walletTypes } : {}),
    dataEntryMode: m.dataEntryMode ?? defaultDataEntryMode(m.instrumentType),
    currencies: m.currencies.map(inOrder),
    provider: m.provider,
    enabled: m.enabled,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

export function toDefinition(m: MethodEntity): ResolvableMethod & MethodDefinition {
  return {
    code: m.code,
    instrumentType: m.instrumentType,
    ...(m.cardBrands ? { cardBrands: m.cardBrands } : {}),
    walletTypes: m.walletTypes,
    ...(m.dataEntryMode ? { dataEntryMode: m.dataEntryMode } : {}),
    currencies: m.currencies,
    provider: m.provider,
    enabled: m.enabled,
  };
}
