import { Check, literal, int, obj, optional, str, uuid } from './schema';
import {
  perObjectCallbackUrl,
  previousTransferStatus,
  TransferCost,
  transferCost,
  TransferStatus,
  transferStatus,
} from './transfers';

export type P2pStatus = TransferStatus;

/** Message types on `p2p.commands` (request-reply from the gateway). */
export const P2pCommandTypes = { create: 'p2p.create', get: 'p2p.get', resolve: 'p2p.resolve' } as const;

/** Message types on `p2p.events`. */
export const P2pEventTypes = { statusChanged: 'p2p.status_changed' } as const;

/**
 * One side of a P2P transaction (docs/decisions.md): the merchant's customer reference, contact
 * data, and where the money comes from or goes to (a card number or a wallet id).
 */
export interface P2pParty {
  customerId?: string;
  name?: string;
  email?: string;
  phone?: string;
  cardNumber?: string;
  walletId?: string;
}

export interface CreateP2pCommand {
  p2pId: string;
  shopId: string;
  merchantP2pId: string;
  cost: TransferCost;
  description?: string;
  sender?: P2pParty;
  recipient?: P2pParty;
  callbackUrl?: string;
}

const party: Check<P2pParty> = obj({
  customerId: optional(str({ min: 1, max: 128 })),
  name: optional(str({ max: 256 })),
  email: optional(str({ max: 254 })),
  phone: optional(str({ max: 16 })),
  cardNumber: optional(str({ pattern: /^[0-9]{12,19}$/ })),
  walletId: optional(str({ max: 128 })),
});

export const createP2pCommand: Check<CreateP2pCommand> = obj({
  p2pId: uuid(),
  shopId: uuid(),
  merchantP2pId: str({ min: 1, max: 128 }),
  cost: transferCost,
  description: optional(str({ max: 1024 })),
  sender: optional(party),
  recipient: optional(party),
  callbackUrl: optional(perObjectCallbackUrl()),
});

export interface GetP2pQuery {
  p2pId: string;
  shopId: string;
}
export const getP2pQuery: Check<GetP2pQuery> = obj({ p2pId: uuid(), shopId: uuid() });

/** The P2P transaction as merchants see it; card numbers are masked. */
export interface P2pView {
  id: string;
  shopId: string;
  status: P2pStatus;
  statusCode?: string;
  statusDescription?: string;
  p2p: { merchantP2pId: string; cost: TransferCost; reportedCost?: TransferCost; description?: string };
  sender?: P2pParty;
  recipient?: P2pParty;
  callbackUrl?: string;
  createdAt: string;
  updatedAt: string;
}

/** `p2p.events`, keyed by p2pId; merchant-callbacks turns it into the merchant's callback. */
export interface P2pStatusChanged {
  p2pId: string;
  shopId: string;
  merchantP2pId: string;
  /** Per P2P transaction, 1 at creation. */
  sequence: number;
  status: P2pStatus;
  /** null at creation. */
  previousStatus: P2pStatus | null;
  statusCode?: string;
  statusDescription?: string;
  cost: TransferCost;
  callbackUrl?: string;
}
export const p2pStatusChanged: Check<P2pStatusChanged> = obj({
  p2pId: uuid(),
  shopId: uuid(),
  merchantP2pId: str(),
  sequence: int(),
  status: transferStatus,
  previousStatus: previousTransferStatus,
  statusCode: optional(str()),
  statusDescription: optional(str()),
  cost: transferCost,
  callbackUrl: optional(str()),
}) as Check<P2pStatusChanged>;

/** An operator's decision on a P2P transaction in need_action, after checking with the provider. */
export interface ResolveP2pCommand {
  p2pId: string;
  action: 'complete' | 'fail';
  operatorNote?: string;
}
export const resolveP2pCommand: Check<ResolveP2pCommand> = obj({
  p2pId: uuid(),
  action: literal('complete', 'fail'),
  operatorNote: optional(str({ max: 1024 })),
});
