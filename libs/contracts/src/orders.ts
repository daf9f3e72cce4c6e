import { Check, decimal, int, literal, obj, optional, record, str, uuid } from './schema';

export const OrderStatuses = [
  'registered',
  'in_progress',
  'need_action',
  'completed',
  'partially_refunded',
  'refunded',
  'cancelled',
  'failed',
] as const;
export type OrderStatus = (typeof OrderStatuses)[number];

export interface CostDto {
  amount: string;
  currency: string;
  tokenStandard?: string;
}

const cost = obj({ amount: decimal(), currency: str({ min: 1, max: 32 }), tokenStandard: optional(str({ max: 16 })) });

/** Message types on `orders.commands`. */
export const OrderCommandTypes = {
  create: 'order.create',
  get: 'order.get',
  cancel: 'order.cancel',
  resolve: 'order.resolve',
  refund: 'order.refund',
} as const;

export interface CancelOrderCommand {
  orderId: string;
  shopId: string;
}
export const cancelOrderCommand: Check<CancelOrderCommand> = obj({ orderId: uuid(), shopId: uuid() });

/** A partial or full refund of a paid order. */
export interface RefundOrderCommand {
  refundId: string;
  orderId: string;
  shopId: string;
  cost: CostDto;
}
export const refundOrderCommand: Check<RefundOrderCommand> = obj({
  refundId: uuid(),
  orderId: uuid(),
  shopId: uuid(),
  cost,
});

/** An operator's decision on an order in need_action. */
export interface ResolveOrderCommand {
  orderId: string;
  action: 'accept_reported_amount' | 'fail';
  operatorNote?: string;
}
export const resolveOrderCommand: Check<ResolveOrderCommand> = obj({
  orderId: uuid(),
  action: literal('accept_reported_amount', 'fail'),
  operatorNote: optional(str({ max: 1024 })),
});

export const InstrumentTypes = ['card', 'wallet', 'bank_transfer', 'mobile_top_up'] as const;
export type InstrumentType = (typeof InstrumentTypes)[number];

export interface MerchantBalance {
  currency: string;
  tokenStandard?: string;
}

export interface CreateOrderCommand {
  orderId: string;
  shopId: string;
  merchantOrderId: string;
  cost: CostDto;
  description?: string;
  instrumentType?: InstrumentType;
  paymentSettings?: { walletType?: 'personal' | 'company' };
  payer?: Record<string, unknown>;
  recipient?: { merchantBalance?: MerchantBalance };
  /** Overrides the shop's callback URL for this order's callbacks (checked by the gateway). */
  callbackUrl?: string;
}
export const createOrderCommand: Check<CreateOrderCommand> = obj({
  orderId: uuid(),
  shopId: uuid(),
  merchantOrderId: str({ min: 1, max: 128 }),
  cost,
  description: optional(str({ max: 1024 })),
  instrumentType: optional(literal(...InstrumentTypes)),
  paymentSettings: optional(obj({ walletType: optional(literal('personal', 'company')) })),
  payer: optional(record()),
  recipient: optional(
    obj({
      merchantBalance: optional(obj({ currency: str({ min: 1, max: 32 }), tokenStandard: optional(str({ max: 16 })) })),
    }),
  ),
  callbackUrl: optional(str({ min: 1, max: 2048 })),
});

export interface GetOrderQuery {
  orderId: string;
  shopId: string;
}
export const getOrderQuery: Check<GetOrderQuery> = obj({ orderId: uuid(), shopId: uuid() });

export interface PaymentAttemptView {
  paymentId: string;
  provider: string;
  status: string;
  amount?: string;
  currency?: string;
  statusCode?: string;
  statusDescription?: string;
  createdAt: string;
  updatedAt: string;
}

export interface RefundView {
  refundId: string;
  amount: string;
  currency: string;
  createdAt: string;
}

/** The order as merchants see it; answered by `order.get` and `order.create`. */
export interface OrderView {
  id: string;
  shopId: string;
  status: OrderStatus;
  statusCode?: string;
  statusDescription?: string;
  order: {
    merchantOrderId: string;
    cost: CostDto;
    originalCost?: CostDto;
    reportedCost?: CostDto;
    description?: string;
  };
  customer?: { id: string };
  instrumentType?: InstrumentType;
  paymentSettings?: { walletType?: 'personal' | 'company' };
  payer?: Record<string, unknown>;
  recipient?: { merchantBalance?: MerchantBalance };
  data: { payments: PaymentAttemptView[]; refunds?: RefundView[] };
  createdAt: string;
  updatedAt: string;
}

/** Message types on `orders.events`. */
export const OrderEventTypes = { statusChanged: 'order.status_changed' } as const;

export interface OrderStatusChanged {
  orderId: string;
  shopId: string;
  merchantOrderId: string;
  /** Per-order sequence, starting at 1 with the order's creation, so merchants can drop stale callbacks. */
  sequence: number;
  status: OrderStatus;
  previousStatus: OrderStatus | null;
  statusCode?: string;
  statusDescription?: string;
  cost: CostDto;
  /** The order's own callback URL, when the merchant gave one; else the shop's applies. */
  callbackUrl?: string;
}
export const orderStatusChanged: Check<OrderStatusChanged> = obj({
  orderId: uuid(),
  shopId: uuid(),
  merchantOrderId: str(),
  sequence: int(),
  status: literal(...OrderStatuses),
  previousStatus: (v, p) => (v === null ? { ok: true, value: null } : literal(...OrderStatuses)(v, p)),
  statusCode: optional(str()),
  statusDescription: optional(str()),
  cost,
  callbackUrl: optional(str({ min: 1, max: 2048 })),
}) as Check<OrderStatusChanged>;
