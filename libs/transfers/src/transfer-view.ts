import type { TransferCost } from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { isKnownStatusCode, statusOf } from '@payments/status-codes';
import type { TransferEntity } from './transfer.entity';
import type { TransferKindSpec, TransferViewParts } from './transfer-kind';

function describe(code: string | null): { statusCode?: string; statusDescription?: string } {
  return code && isKnownStatusCode(code) ? statusOf(code) : {};
}

function costOf(t: TransferEntity): TransferCost {
  return {
    amount: formatInCurrency(t.amount, t.currency),
    currency: t.currency,
    ...(t.tokenStandard ? { tokenStandard: t.tokenStandard } : {}),
  };
}

/** The transfer as merchants see it (answers of create and get). */
export function toTransferView(kind: TransferKindSpec<any>, t: TransferEntity, now: Date = new Date()): unknown {
  const reported =
    t.status === 'need_action' && t.reportedAmount && t.reportedCurrency
      ? {
          reportedCost: {
            amount: formatInCurrency(t.reportedAmount, t.reportedCurrency),
            currency: t.reportedCurrency,
          },
        }
      : {};
  const parts: TransferViewParts = {
    head: { id: t.id, shopId: t.shopId, status: t.status, ...describe(t.statusCode) },
    cost: costOf(t),
    reported,
    description: t.description ? { description: t.description } : {},
    tail: {
      ...(t.callbackUrl ? { callbackUrl: t.callbackUrl } : {}),
      createdAt: t.createdAt.toISOString(),
      updatedAt: t.updatedAt.toISOString(),
    },
    now,
  };
  return kind.view(t, parts);
}

/** The `<kind>.status_changed` event that merchant-callbacks turns into the merchant's callback. */
export function toTransferStatusChanged(
  kind: TransferKindSpec<any>,
  t: TransferEntity,
  previousStatus: TransferEntity['status'] | null,
): Record<string, unknown> {
  return {
    [kind.idField]: t.id,
    shopId: t.shopId,
    [kind.merchantIdField]: (t as unknown as Record<string, unknown>)[kind.merchantIdField],
    sequence: t.sequence,
    status: t.status,
    previousStatus,
    ...describe(t.statusCode),
    cost: costOf(t),
    ...(t.callbackUrl ? { callbackUrl: t.callbackUrl } : {}),
  };
}
