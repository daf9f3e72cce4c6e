import type { PayoutStatusChanged, PayoutView, TransferCost } from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { isKnownStatusCode, statusOf } from '@payments/status-codes';
import { maskDetails } from '@payments/transfers-domain';
import { PayoutEntity } from './payout.entity';

function describe(code: string | null): { statusCode?: string; statusDescription?: string } {
  return code && isKnownStatusCode(code) ? statusOf(code) : {};
}

function costOf(p: PayoutEntity): TransferCost {
  return {
    amount: formatInCurrency(p.amount, p.currency),
    currency: p.currency,
    ...(p.tokenStandard ? { tokenStandard: p.tokenStandard } : {}),
  };
}

export function toPayoutView(p: PayoutEntity): PayoutView {
  const reported =
    p.status === 'need_action' && p.reportedAmount && p.reportedCurrency
      ? {
          reportedCost: {
            amount: formatInCurrency(p.reportedAmount, p.reportedCurrency),
            currency: p.reportedCurrency,
          },
        }
      : {};
  return {
    id: p.id,
    shopId: p.shopId,
    status: p.status,
    ...describe(p.statusCode),
    payout: {
      merchantPayoutId: p.merchantPayoutId,
      method: p.method,
      cost: costOf(p),
      ...reported,
      ...(p.cryptoTokenStandard ? { cryptoTokenStandard: p.cryptoTokenStandard } : {}),
      ...(p.description ? { description: p.description } : {}),
    },
    ...(p.instrumentType ? { instrumentType: p.instrumentType } : {}),
    ...(p.walletType ? { walletType: p.walletType } : {}),
    payee: maskDetails(p.payee),
    ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function toPayoutStatusChanged(
  p: PayoutEntity,
  previousStatus: PayoutStatusChanged['previousStatus'],
): PayoutStatusChanged {
  return {
    payoutId: p.id,
    shopId: p.shopId,
    merchantPayoutId: p.merchantPayoutId,
    sequence: p.sequence,
    status: p.status,
    previousStatus,
    ...describe(p.statusCode),
    cost: costOf(p),
    ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}),
  };
}
