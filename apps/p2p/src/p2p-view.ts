import type { P2pParty, P2pStatusChanged, P2pView, TransferCost } from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { isKnownStatusCode, statusOf } from '@payments/status-codes';
import { maskDetails } from '@payments/transfers-domain';
import { P2pEntity } from './p2p.entity';

function describe(code: string | null): { statusCode?: string; statusDescription?: string } {
  return code && isKnownStatusCode(code) ? statusOf(code) : {};
}

function costOf(p: P2pEntity): TransferCost {
  return {
    amount: formatInCurrency(p.amount, p.currency),
    currency: p.currency,
    ...(p.tokenStandard ? { tokenStandard: p.tokenStandard } : {}),
  };
}

function party(key: 'sender' | 'recipient', value: P2pParty | null): Record<string, P2pParty> {
  return value ? { [key]: maskDetails(value as Record<string, unknown>) as P2pParty } : {};
}

export function toP2pView(p: P2pEntity): P2pView {
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
    p2p: {
      merchantP2pId: p.merchantP2pId,
      cost: costOf(p),
      ...reported,
      ...(p.description ? { description: p.description } : {}),
    },
    ...party('sender', p.sender),
    ...party('recipient', p.recipient),
    ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function toP2pStatusChanged(p: P2pEntity, previousStatus: P2pStatusChanged['previousStatus']): P2pStatusChanged {
  return {
    p2pId: p.id,
    shopId: p.shopId,
    merchantP2pId: p.merchantP2pId,
    sequence: p.sequence,
    status: p.status,
    previousStatus,
    ...describe(p.statusCode),
    cost: costOf(p),
    ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}),
  };
}
