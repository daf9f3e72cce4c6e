import { z } from 'zod';
import { decimal, optional, uuid } from './schema';
import { operatorIdentity, operatorMember } from './operator-identity';
import { providerIds } from './shops';

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
const orderStatus = z.enum(OrderStatuses);

export const costDto = z
  .object({
    amount: decimal(),
    currency: z.string().min(1).max(32),
    tokenStandard: optional(z.string().max(16)),
  })
  .describe('An amount of money: a decimal string, its currency and, for a crypto token, its standard');
export type CostDto = z.infer<typeof costDto>;

/** Message types on `orders.commands`. */
export const OrderCommandTypes = {
  create: 'order.create',
  get: 'order.get',
  getForOperator: 'order.get_for_operator',
  getByMerchantId: 'order.get_by_merchant_id',
  listForOperator: 'order.list_for_operator',
  cancel: 'order.cancel',
  resolve: 'order.resolve',
  refund: 'order.refund',
  getForCheckout: 'order.get_for_checkout',
  payHosted: 'order.pay_hosted',
} as const;

/** Where the one payment of a hosted link is. */
export const PaymentLinkStatuses = ['live', 'used', 'expired', 'closed'] as const;
export type PaymentLinkStatus = (typeof PaymentLinkStatuses)[number];

export const PageLocales = ['uz', 'ru', 'en'] as const;
export type PageLocale = (typeof PageLocales)[number];

/** A SHA-256 (hex) of a payment link's token: what is stored and what crosses Kafka, never the token. */
export const linkHash = () => z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be a SHA-256 in hex' });

export const redirectUrls = z
  .object({ success: optional(z.string().min(1).max(2048)), failure: optional(z.string().min(1).max(2048)) })
  .describe('Where the payment page sends the payer when the order is final (checked by the gateway)');

/** The hosted payment page of an order (ARCHITECTURE.md section 8): the link's hash, expiry and where to return. */
export const hostedPage = z
  .object({
    linkHash: linkHash(),
    expiresAt: z.string().describe('When the link stops taking payments (ISO 8601)'),
    locale: optional(z.enum(PageLocales)),
    redirectUrls: optional(redirectUrls),
  })
  .describe('The order is paid on the hosted page: it stays registered until the payer submits');
export type HostedPage = z.infer<typeof hostedPage>;

export const cancelOrderCommand = z.object({ orderId: uuid(), shopId: uuid() }).describe('Cancels an unpaid order');
export type CancelOrderCommand = z.infer<typeof cancelOrderCommand>;

export const refundOrderCommand = z
  .object({ refundId: uuid(), orderId: uuid(), shopId: uuid(), cost: costDto })
  .describe('A partial or full refund of a paid order');
export type RefundOrderCommand = z.infer<typeof refundOrderCommand>;

export const resolveOrderCommand = z
  .object({
    orderId: uuid(),
    action: z.enum(['accept_reported_amount', 'fail']),
    operatorNote: optional(z.string().max(1024)),
    operator: operatorIdentity,
  })
  .describe("An operator's decision on an order in need_action");
export type ResolveOrderCommand = z.infer<typeof resolveOrderCommand>;

export const InstrumentTypes = ['card', 'wallet', 'bank_transfer', 'mobile_top_up'] as const;
export type InstrumentType = (typeof InstrumentTypes)[number];

export const merchantBalance = z.object({
  currency: z.string().min(1).max(32),
  tokenStandard: optional(z.string().max(16)),
});
export type MerchantBalance = z.infer<typeof merchantBalance>;

const walletType = z.enum(['personal', 'company']);

/** What the payer needs to pay with an app, wallet or transfer elsewhere (dataEntryMode instruction). */
export const paymentInstructions = z
  .object({
    method: z.string(),
    amount: decimal(),
    currency: z.string(),
    deeplinks: z.object({
      app: z.string().describe('Opens the bank or wallet app, e.g. sandboxpay://pay?...'),
      universal: z.string().describe('An https page of the provider that opens the app, or plays it'),
    }),
    qr: z.string().describe('What the QR code holds (the universal link)'),
    // No expiresAt: nothing enforced it (docs/decisions.md 192); stored copies that have one parse, without it.
  })
  .describe("Instructions for a payment the payer completes in an app: deeplinks and the QR code's payload");
export type PaymentInstructions = z.infer<typeof paymentInstructions>;

export const createOrderCommand = z
  .object({
    orderId: uuid(),
    shopId: uuid(),
    merchantOrderId: z.string().min(1).max(128),
    cost: costDto,
    description: optional(z.string().max(1024)),
    instrumentType: optional(z.enum(InstrumentTypes)),
    paymentSettings: optional(z.object({ walletType: optional(walletType) })),
    payer: optional(z.record(z.string(), z.unknown())),
    recipient: optional(z.object({ merchantBalance: optional(merchantBalance) })),
    callbackUrl: optional(
      z
        .string()
        .min(1)
        .max(2048)
        .describe("Overrides the shop's callback URL for this order's callbacks (checked by the gateway)"),
    ),
    hosted: optional(hostedPage),
    shopHosted: optional(
      z
        .object({ method: z.string().min(1).max(64), expiresAt: z.string() })
        .describe('shop_hosted: the instruction method the gateway chose; the shop shows the payer the instructions'),
    ),
  })
  .describe('A payment order the gateway has checked, with the id it assigned');
export type CreateOrderCommand = z.infer<typeof createOrderCommand>;

export const getOrderQuery = z.object({ orderId: uuid(), shopId: uuid() }).describe('Reads one order of a shop');
export type GetOrderQuery = z.infer<typeof getOrderQuery>;

export const getOrderForOperatorQuery = z
  .object({ orderId: uuid(), ...operatorMember() })
  .describe('Reads one order of any shop, for the operator API');
export type GetOrderForOperatorQuery = z.infer<typeof getOrderForOperatorQuery>;
export const getOrderByMerchantIdQuery = z
  .object({ merchantOrderId: z.string().min(1).max(128), shopId: uuid() })
  .describe("Reads one order of a shop by the merchant's own id");
export type GetOrderByMerchantIdQuery = z.infer<typeof getOrderByMerchantIdQuery>;

export const paymentAttemptView = z.object({
  paymentId: z.string(),
  provider: z.string(),
  status: z.string(),
  amount: z.string().optional(),
  currency: z.string().optional(),
  statusCode: z.string().optional(),
  statusDescription: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PaymentAttemptView = z.infer<typeof paymentAttemptView>;

export const refundView = z.object({
  refundId: z.string(),
  amount: z.string(),
  currency: z.string(),
  createdAt: z.string(),
});
export type RefundView = z.infer<typeof refundView>;

const allowedRangeView = z
  .object({
    lowerPercent: decimal(),
    upperPercent: decimal(),
    lowerBound: decimal(),
    upperBound: decimal(),
  })
  .describe("The shop's allowed deviation when the rule fired, in percent, and the amounts it allowed");

const needActionResolutionView = z.object({
  autoFinalization: z.boolean().describe("The shop's automatic finalization of need_action when the rule fired"),
  resolvedBy: z.enum(['operator', 'follow_up_callback_or_operator', 'provider_response']),
  description: z.string(),
});

const needActionCommon = {
  statusCode: z.string(),
  statusDescription: z.string().optional(),
  expected: costDto,
  allowedRange: allowedRangeView,
  resolution: needActionResolutionView,
};

export const NeedActionRules = [
  'amount_outside_range',
  'currency_differs',
  'provider_timeout',
  'duplicate_payment',
] as const;

/** Why an order waits in need_action (issue 17): the rule that fired and what resolves it. */
export const needActionView = z
  .discriminatedUnion('rule', [
    z.object({ rule: z.literal('amount_outside_range'), reported: costDto, ...needActionCommon }),
    z.object({ rule: z.literal('currency_differs'), reported: costDto, ...needActionCommon }),
    z.object({ rule: z.literal('provider_timeout'), ...needActionCommon }),
    z.object({ rule: z.literal('duplicate_payment'), reported: costDto, ...needActionCommon }),
  ])
  .describe('Why the order needs action: the rule that fired, expected and reported money, and what resolves it');
export type NeedActionView = z.infer<typeof needActionView>;

export const orderView = z
  .object({
    id: z.string(),
    shopId: z.string(),
    status: orderStatus,
    statusCode: z.string().optional(),
    statusDescription: z.string().optional(),
    order: z.object({
      merchantOrderId: z.string(),
      cost: costDto,
      originalCost: costDto.optional(),
      reportedCost: costDto.optional(),
      description: z.string().optional(),
    }),
    customer: z.object({ id: z.string() }).optional(),
    instrumentType: z.enum(InstrumentTypes).optional(),
    paymentSettings: z.object({ walletType: walletType.optional() }).optional(),
    payer: z.record(z.string(), z.unknown()).optional(),
    recipient: z.object({ merchantBalance: merchantBalance.optional() }).optional(),
    needAction: needActionView.optional(),
    data: z.object({
      payments: z.array(paymentAttemptView),
      refunds: z.array(refundView).optional(),
      paymentLink: z.string().optional().describe('Added by the gateway from the order id while the link is live'),
      expiresAt: z.string().optional().describe("A hosted order's link expiry, while the link is live"),
      paymentLinkStatus: z.enum(PaymentLinkStatuses).optional(),
      instructions: paymentInstructions.optional().describe('shop_hosted: what the shop shows the payer, while unpaid'),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('The order as merchants see it; answered by order.get and order.create');

export const getOrderForCheckoutQuery = z
  .object({ orderId: uuid(), linkHash: linkHash() })
  .describe('Reads a hosted order for its payment page; an order whose link hash differs is not found');
export type GetOrderForCheckoutQuery = z.infer<typeof getOrderForCheckoutQuery>;

export const tokenizedCard = z
  .object({
    token: z.string().min(1).max(64),
    bin: z.string().regex(/^[0-9]{6}$/),
    last4: z.string().regex(/^[0-9]{4}$/),
    masked: z.string().max(32),
  })
  .describe('A card as everything but the vault holds it (docs/decisions.md 110)');

export const payHostedCommand = z
  .object({
    orderId: uuid(),
    linkHash: linkHash(),
    method: z.string().min(1).max(64),
    dataEntryMode: optional(z.enum(['card_form', 'instruction', 'redirect'])),
    card: optional(tokenizedCard),
  })
  .describe("The payer's one payment of a hosted link: the card as a vault token, never the number");
export type PayHostedCommand = z.infer<typeof payHostedCommand>;

/** What the payment page shows: no payer data, no card but its masked number. */
export const checkoutOrderView = z
  .object({
    orderId: z.string(),
    shopId: z.string(),
    shopName: z.string().optional(),
    merchantOrderId: z.string(),
    status: orderStatus,
    statusCode: z.string().optional(),
    statusDescription: z.string().optional(),
    amount: decimal(),
    currency: z.string(),
    description: z.string().optional(),
    expiresAt: z.string(),
    linkStatus: z.enum(PaymentLinkStatuses),
    locale: z.enum(PageLocales).optional(),
    redirectUrls: redirectUrls.optional(),
    maskedCard: z.string().optional(),
    instructions: paymentInstructions.optional(),
    providerIds: providerIds
      .optional()
      .describe(
        'The public ids of the shop\'s accounts with app providers (decision 342), by provider code: the page\'s "Pay with" links carry them',
      ),
  })
  .describe('A hosted order as its payment page shows it');
export type CheckoutOrderView = z.infer<typeof checkoutOrderView>;
export type OrderView = z.infer<typeof orderView>;

export const listOrdersForOperatorQuery = z
  .object({
    status: optional(orderStatus),
    shopId: optional(uuid()),
    merchantOrderId: optional(z.string().min(1).max(128)),
    limit: z.number().int().min(1).max(100),
    /** The nextCursor of the previous page. */
    cursor: optional(z.string().regex(/^[A-Za-z0-9_-]{1,200}$/)),
    ...operatorMember(),
  })
  .describe("Lists any shop's orders for operators, newest first (the console's need_action queue and search)");
export type ListOrdersForOperatorQuery = z.infer<typeof listOrdersForOperatorQuery>;

export const orderPage = z
  .object({ items: z.array(orderView), nextCursor: z.string().nullable() })
  .describe('A page of orders, newest first');
export type OrderPage = z.infer<typeof orderPage>;

/** Message types on `orders.events`. */
export const OrderEventTypes = { statusChanged: 'order.status_changed' } as const;

export const orderStatusChanged = z
  .object({
    orderId: uuid(),
    shopId: uuid(),
    merchantOrderId: z.string(),
    sequence: z.int().describe("Per order, 1 at the order's creation, so merchants can drop stale callbacks"),
    status: orderStatus,
    previousStatus: orderStatus.nullable().describe('null at creation'),
    statusCode: optional(z.string()),
    statusDescription: optional(z.string()),
    cost: costDto,
    callbackUrl: optional(
      z
        .string()
        .min(1)
        .max(2048)
        .describe("The order's own callback URL, when the merchant gave one; else the shop's applies"),
    ),
    instructions: optional(paymentInstructions.describe('shop_hosted: the instructions, in the creation event')),
    // What the ledger books by (ARCHITECTURE.md section 11); merchant callbacks leave them out.
    merchantBalance: optional(merchantBalance.describe("recipient.merchantBalance: the shop's balance currency")),
    method: optional(z.string().max(64).describe('The payment method or instrument type, for the fee schedule')),
    provider: optional(z.string().max(64).describe('The provider that reported the change, for provider clearing')),
    refund: optional(
      z
        .object({ refundId: uuid(), amount: decimal() })
        .describe('In a refund event: the refund it tells of, in the order currency'),
    ),
  })
  .describe('An order changed status; merchant-callbacks turns it into the merchant callback');
export type OrderStatusChanged = z.infer<typeof orderStatusChanged>;
