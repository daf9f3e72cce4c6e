import { z } from 'zod';
import { cardRef } from './cards';
import { optional, uuid } from './schema';
import { operatorIdentity } from './operator-identity';
import {
  perObjectCallbackUrl,
  previousTransferStatus,
  transferCost,
  TransferStatus,
  transferStatus,
} from './transfers';

export type P2pStatus = TransferStatus;

/** Message types on `p2p.commands` (request-reply from the gateway). */
export const P2pCommandTypes = {
  create: 'p2p.create',
  get: 'p2p.get',
  getByMerchantId: 'p2p.get_by_merchant_id',
  listForOperator: 'p2p.list_for_operator',
  resolve: 'p2p.resolve',
} as const;

/** Message types on `p2p.events`. */
export const P2pEventTypes = { statusChanged: 'p2p.status_changed' } as const;

/**
 * One side of a P2P transaction (docs/decisions.md 50): the merchant's customer reference, contact
 * data, and where the money comes from or goes to (a card number or a wallet id).
 */
export const p2pParty = z
  .object({
    customerId: optional(z.string().min(1).max(128)),
    name: optional(z.string().max(256)),
    email: optional(z.string().max(254)),
    phone: optional(z.string().max(16)),
    cardNumber: optional(z.string().regex(/^[0-9]{12,19}$/, { error: 'must be 12 to 19 digits' })),
    walletId: optional(z.string().max(128)),
  })
  .describe('One side of a P2P transaction: customer reference, contact data, card number or wallet id');
export type P2pParty = z.infer<typeof p2pParty>;

/** One side as it crosses `p2p.commands` and is stored: the card as the vault's token, never its number. */
export const p2pPartyCommand = p2pParty
  .omit({ cardNumber: true })
  .extend({ card: optional(cardRef) })
  .strict()
  .describe('One side of a P2P transaction, its card tokenized by the gateway');
export type P2pPartyCommand = z.infer<typeof p2pPartyCommand>;

/** One side as answered: the card number masked. */
export const p2pPartyView = p2pParty
  .extend({ cardNumber: z.string().optional().describe('Masked: BIN, stars, last 4') })
  .describe('One side of a P2P transaction, card number masked');
export type P2pPartyView = z.infer<typeof p2pPartyView>;

export const createP2pCommand = z
  .object({
    p2pId: uuid(),
    shopId: uuid(),
    merchantP2pId: z.string().min(1).max(128),
    cost: transferCost,
    description: optional(z.string().max(1024)),
    sender: optional(p2pPartyCommand),
    recipient: optional(p2pPartyCommand),
    callbackUrl: optional(perObjectCallbackUrl()),
  })
  .describe('A P2P transaction the gateway has checked, with the id it assigned');
export type CreateP2pCommand = z.infer<typeof createP2pCommand>;

export const getP2pQuery = z.object({ p2pId: uuid(), shopId: uuid() }).describe('Reads one P2P transaction of a shop');
export type GetP2pQuery = z.infer<typeof getP2pQuery>;

export const getP2pByMerchantIdQuery = z
  .object({ merchantP2pId: z.string().min(1).max(128), shopId: uuid() })
  .describe("Reads one P2P transaction of a shop by the merchant's own id");
export type GetP2pByMerchantIdQuery = z.infer<typeof getP2pByMerchantIdQuery>;

export const p2pView = z
  .object({
    id: z.string(),
    shopId: z.string(),
    status: transferStatus,
    statusCode: z.string().optional(),
    statusDescription: z.string().optional(),
    p2p: z.object({
      merchantP2pId: z.string(),
      cost: transferCost,
      reportedCost: transferCost.optional(),
      description: z.string().optional(),
    }),
    sender: p2pPartyView.optional(),
    recipient: p2pPartyView.optional(),
    callbackUrl: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('The P2P transaction as merchants see it; card numbers are masked');
export type P2pView = z.infer<typeof p2pView>;

export const p2pPage = z
  .object({ items: z.array(p2pView), nextCursor: z.string().nullable() })
  .describe('A page of P2P transactions, newest first');
export type P2pPage = z.infer<typeof p2pPage>;

export const p2pStatusChanged = z
  .object({
    p2pId: uuid(),
    shopId: uuid(),
    merchantP2pId: z.string(),
    sequence: z.int().describe('Per P2P transaction, 1 at creation'),
    status: transferStatus,
    previousStatus: previousTransferStatus,
    statusCode: optional(z.string()),
    statusDescription: optional(z.string()),
    cost: transferCost,
    callbackUrl: optional(z.string()),
  })
  .describe('p2p.events, keyed by p2pId; merchant-callbacks turns it into the merchant callback');
export type P2pStatusChanged = z.infer<typeof p2pStatusChanged>;

export const resolveP2pCommand = z
  .object({
    p2pId: uuid(),
    action: z.enum(['complete', 'fail']),
    operatorNote: optional(z.string().max(1024)),
    operator: operatorIdentity,
  })
  .describe("An operator's decision on a P2P transaction in need_action, after checking with the provider");
export type ResolveP2pCommand = z.infer<typeof resolveP2pCommand>;
