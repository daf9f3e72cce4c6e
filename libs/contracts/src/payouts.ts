import { z } from 'zod';
import { cardRef } from './cards';
import { optional, uuid } from './schema';
import { operatorIdentity } from './operator-identity';
import { linkHash, PageLocales, redirectUrls } from './orders';
import {
  perObjectCallbackUrl,
  previousTransferStatus,
  transferCost,
  TransferStatus,
  transferStatus,
} from './transfers';

export type PayoutStatus = TransferStatus;

/** Message types on `payouts.commands` (request-reply from the gateway). */
export const PayoutCommandTypes = {
  create: 'payout.create',
  get: 'payout.get',
  getByMerchantId: 'payout.get_by_merchant_id',
  listForOperator: 'payout.list_for_operator',
  resolve: 'payout.resolve',
  getForCheckout: 'payout.get_for_checkout',
  submitDetails: 'payout.submit_details',
} as const;

/** Message types on `payouts.events`. */
export const PayoutEventTypes = { statusChanged: 'payout.status_changed' } as const;

export const PayoutInstrumentTypes = ['card', 'wallet', 'bank_transfer', 'mobile_top_up', 'crypto'] as const;
export type PayoutInstrumentType = (typeof PayoutInstrumentTypes)[number];

const walletType = z.enum(['personal', 'company']);

/**
 * A payout the gateway has already checked: its method resolved through `methods` (the provider
 * and instrument type come from there) and its payee checked against the method's fields.
 */
export const createPayoutCommand = z
  .object({
    payoutId: uuid(),
    shopId: uuid(),
    merchantPayoutId: z.string().min(1).max(128),
    method: z.string().min(1).max(64).describe('The payout method code of the shop'),
    provider: z.string().min(1).max(64).describe('The provider the method sends through (from methods)'),
    cost: transferCost,
    cryptoTokenStandard: optional(
      z.string().max(16).describe('Kept and answered as given, independent of cost.tokenStandard'),
    ),
    description: optional(z.string().max(1024)),
    instrumentType: optional(z.enum(PayoutInstrumentTypes)),
    walletType: optional(walletType),
    payee: z.record(z.string(), z.unknown()).describe("The payee's fields except its card numbers"),
    payeeCards: optional(
      z.record(z.string(), cardRef).describe('The payee fields that are card numbers, tokenized by the gateway'),
    ),
    callbackUrl: optional(perObjectCallbackUrl()),
    hosted: optional(
      z
        .object({
          linkHash: z.string().length(64).describe("SHA-256 (hex) of the payout link's token; never the token"),
          expiresAt: z.string().describe('When the link stops taking recipient details (ISO 8601)'),
          locale: optional(z.enum(['uz', 'ru', 'en'])),
          redirectUrls: optional(z.object({ success: optional(z.string()), failure: optional(z.string()) })),
        })
        .describe('Payout via payment page: the recipient gives the payee on a link; nothing is sent before'),
    ),
  })
  .describe('A payout the gateway has checked: method resolved, payee checked against its fields (or a link for them)');
export type CreatePayoutCommand = z.infer<typeof createPayoutCommand>;

export const getPayoutQuery = z.object({ payoutId: uuid(), shopId: uuid() }).describe('Reads one payout of a shop');
export type GetPayoutQuery = z.infer<typeof getPayoutQuery>;

export const getPayoutByMerchantIdQuery = z
  .object({ merchantPayoutId: z.string().min(1).max(128), shopId: uuid() })
  .describe("Reads one payout of a shop by the merchant's own id");
export type GetPayoutByMerchantIdQuery = z.infer<typeof getPayoutByMerchantIdQuery>;

/** The states of a payout link, as its page sees them. */
export const PayoutLinkStatuses = ['live', 'used', 'expired', 'closed'] as const;
export type PayoutLinkStatus = (typeof PayoutLinkStatuses)[number];

export const payoutView = z
  .object({
    id: z.string(),
    shopId: z.string(),
    status: transferStatus,
    statusCode: z.string().optional(),
    statusDescription: z.string().optional(),
    payout: z.object({
      merchantPayoutId: z.string(),
      method: z.string(),
      cost: transferCost,
      reportedCost: transferCost
        .optional()
        .describe('What the provider reported, while the payout waits in need_action for a mismatch'),
      cryptoTokenStandard: z.string().optional(),
      description: z.string().optional(),
    }),
    instrumentType: z.enum(PayoutInstrumentTypes).optional(),
    walletType: walletType.optional(),
    payee: z.record(z.string(), z.unknown()).describe('The payee as given, with card and account numbers masked'),
    callbackUrl: z.string().optional(),
    data: z
      .object({
        payoutLink: z.string().optional().describe('Added by the gateway from the payout id while the link is live'),
        expiresAt: z.string().optional().describe("A hosted payout's link expiry, while the link is live"),
        payoutLinkStatus: z
          .enum(PayoutLinkStatuses)
          .optional()
          .describe('Where the payout link is (live, used, expired, closed); only on a payout made via payment page'),
      })
      .optional()
      .describe('Payout via payment page: where the recipient gives the payee details'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('The payout as merchants see it; answered by payout.create and payout.get');
export type PayoutView = z.infer<typeof payoutView>;

export const payoutPage = z
  .object({ items: z.array(payoutView), nextCursor: z.string().nullable() })
  .describe('A page of payouts, newest first');
export type PayoutPage = z.infer<typeof payoutPage>;

export const payoutStatusChanged = z
  .object({
    payoutId: uuid(),
    shopId: uuid(),
    merchantPayoutId: z.string(),
    sequence: z.int().describe('Per payout, 1 at creation, so merchants can drop stale callbacks'),
    status: transferStatus,
    previousStatus: previousTransferStatus,
    statusCode: optional(z.string()),
    statusDescription: optional(z.string()),
    cost: transferCost,
    callbackUrl: optional(z.string().describe("The payout's own callback URL, when the merchant gave one")),
  })
  .describe('payouts.events, keyed by payoutId; merchant-callbacks turns it into the merchant callback');
export type PayoutStatusChanged = z.infer<typeof payoutStatusChanged>;

export const resolvePayoutCommand = z
  .object({
    payoutId: uuid(),
    action: z.enum(['complete', 'fail']),
    operatorNote: optional(z.string().max(1024)),
    operator: operatorIdentity,
  })
  .describe("An operator's decision on a payout in need_action, after checking with the provider");
export type ResolvePayoutCommand = z.infer<typeof resolvePayoutCommand>;

export const getPayoutForCheckoutQuery = z
  .object({ payoutId: uuid(), linkHash: linkHash() })
  .describe("Reads a payout via payment page for its recipient's page (checkout): the link's hash must match");
export type GetPayoutForCheckoutQuery = z.infer<typeof getPayoutForCheckoutQuery>;

export const submitPayoutDetailsCommand = z
  .object({
    payoutId: uuid(),
    linkHash: linkHash(),
    method: z.string().min(1).max(64).describe("The shop's payout method the recipient chose"),
    provider: z.string().min(1).max(64).describe('Its provider, as methods resolved it'),
    instrumentType: z.enum(PayoutInstrumentTypes),
    payee: z
      .record(z.string(), z.string())
      .describe("The payee's fields, checked against the method's, but card numbers"),
    payeeCards: optional(z.record(z.string(), cardRef).describe('The card numbers, tokenized by checkout')),
  })
  .describe("The recipient's one submission of a payout link: the payee, its card numbers as vault tokens");
export type SubmitPayoutDetailsCommand = z.infer<typeof submitPayoutDetailsCommand>;

/** What the payout page shows: the amount and where the payout is; no payee but masked. */
export const checkoutPayoutView = z
  .object({
    payoutId: z.string(),
    shopId: z.string(),
    merchantPayoutId: z.string(),
    method: z.string().describe('The method chosen at creation (or by the recipient, once submitted)'),
    status: transferStatus,
    statusCode: z.string().optional(),
    amount: z.string(),
    currency: z.string(),
    tokenStandard: z.string().optional(),
    description: z.string().optional(),
    expiresAt: z.string(),
    linkStatus: z.enum(PayoutLinkStatuses),
    locale: z.enum(PageLocales).optional(),
    redirectUrls: redirectUrls.optional(),
    maskedPayee: z.string().optional().describe('The masked card number or last characters of the account'),
  })
  .describe('A payout via payment page as its page shows it');
export type CheckoutPayoutView = z.infer<typeof checkoutPayoutView>;
