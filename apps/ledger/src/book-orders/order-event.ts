import { ContractViolation, Envelope, OrderStatuses, orderStatusChanged, parsePayload } from '@payments/contracts';
import { LedgerCurrency, ledgerCurrency } from '@payments/ledger-domain';
import { Amount, amountOf } from '@payments/money';

/** What the books take from an order's status change: a completion or a refund. */
export interface OrderBooking {
  eventId: string;
  occurredAt: Date;
  kind: 'completed' | 'refunded';
  orderId: string;
  shopId: string;
  method: string | null;
  provider: string | null;
  orderCurrency: LedgerCurrency;
  /** recipient.merchantBalance, the order currency when absent. */
  balanceCurrency: LedgerCurrency;
  /** Completed: the accepted amount; refunded: the refund's amount. Both in the order currency. */
  amount: Amount;
  refundId?: string;
}

/**
 * Thrown for a message the books cannot take (an unknown currency, a fee above the amount): it is
 * dead-lettered at once with the reason (retrying cannot help until an operator fixes the fee
 * schedule and redrives it), never guessed at.
 */
export class UnbookableEvent extends ContractViolation {
  constructor(
    readonly eventId: string,
    message: string,
  ) {
    super(message);
  }
}

const OTHER_STATUSES: ReadonlySet<unknown> = new Set(OrderStatuses.filter((s) => s !== 'completed'));

/**
 * Whether a status change plainly moves no money, read from its payload before any validation: a
 * known status other than `completed` (or `completed` again) and no `refund`. Most of an order's
 * events are such, and the books skip them without parsing their schema, so one of them that the
 * schema would refuse (a missing order id, say) is skipped too: it could post nothing either way,
 * and merchant-callbacks, which reads every event, still dead-letters it. Anything else (an
 * unknown status, a completion, a refund) goes to `toOrderBooking`, which decides and names a bad one.
 */
export function plainlyMovesNoMoney(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null) return false;
  const p = payload as { status?: unknown; previousStatus?: unknown; refund?: unknown };
  if (p.refund !== undefined && p.refund !== null) return false;
  return OTHER_STATUSES.has(p.status) || (p.status === 'completed' && p.previousStatus === 'completed');
}

/** The booking of a status change, or null when it moves no money (every other status). */
export function toOrderBooking(message: Envelope): OrderBooking | null {
  const p = parsePayload(orderStatusChanged, message.payload, message.type);
  const completed = p.status === 'completed' && p.previousStatus !== 'completed';
  if (!completed && !p.refund) return null;
  const currency = (field: string, code: string, token?: string) => {
    const c = ledgerCurrency(code, token);
    if (c.kind === 'invalid') throw new UnbookableEvent(message.eventId, `order ${p.orderId}: ${field}: ${c.reason}`);
    return c.currency;
  };
  const orderCurrency = currency('cost.currency', p.cost.currency, p.cost.tokenStandard);
  const balanceCurrency = p.merchantBalance
    ? currency('merchantBalance.currency', p.merchantBalance.currency, p.merchantBalance.tokenStandard)
    : orderCurrency;
  return {
    eventId: message.eventId.toLowerCase(),
    occurredAt: new Date(message.occurredAt),
    kind: p.refund ? 'refunded' : 'completed',
    orderId: p.orderId,
    shopId: p.shopId,
    method: p.method ?? null,
    provider: p.provider ?? null,
    orderCurrency,
    balanceCurrency,
    amount: amountOf(p.refund ? p.refund.amount : p.cost.amount),
    ...(p.refund ? { refundId: p.refund.refundId } : {}),
  };
}
