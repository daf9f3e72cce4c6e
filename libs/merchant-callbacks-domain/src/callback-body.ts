import { isKnownStatusCode, statusOf } from '@payments/status-codes';

export const CallbackTypes = ['order.status_changed', 'payout.status_changed', 'p2p.status_changed'] as const;
export type CallbackType = (typeof CallbackTypes)[number];
export type ObjectType = 'order' | 'payout' | 'p2p';

export interface CallbackCost {
  amount: string;
  currency: string;
  tokenStandard?: string;
}

/** What a status change event says, whatever the kind of object. */
export interface StatusChange {
  type: CallbackType;
  objectId: string;
  shopId: string;
  merchantReference: string;
  sequence: number;
  status: string;
  previousStatus: string | null;
  statusCode?: string;
  statusDescription?: string;
  cost: CallbackCost;
  /** shop_hosted orders: what the shop shows the payer (deeplinks, QR payload), in the creation callback. */
  instructions?: CallbackInstructions;
}

export interface CallbackInstructions {
  method: string;
  amount: string;
  currency: string;
  deeplinks: { app: string; universal: string };
  qr: string;
}

/** The JSON body posted to the merchant. Built from named fields only: nothing else of the event (payer data) can leak. */
export interface CallbackBody {
  eventId: string;
  type: CallbackType;
  objectType: ObjectType;
  objectId: string;
  shopId: string;
  merchantOrderId?: string;
  merchantPayoutId?: string;
  merchantP2pId?: string;
  sequence: number;
  status: string;
  previousStatus: string | null;
  statusCode: string | null;
  statusDescription: string | null;
  cost: CallbackCost;
  instructions?: CallbackInstructions;
  occurredAt: string;
}

const OBJECT: Record<
  CallbackType,
  { objectType: ObjectType; reference: 'merchantOrderId' | 'merchantPayoutId' | 'merchantP2pId' }
> = {
  'order.status_changed': { objectType: 'order', reference: 'merchantOrderId' },
  'payout.status_changed': { objectType: 'payout', reference: 'merchantPayoutId' },
  'p2p.status_changed': { objectType: 'p2p', reference: 'merchantP2pId' },
};

export function objectTypeOf(type: CallbackType): ObjectType {
  return OBJECT[type].objectType;
}

/**
 * The description comes from the catalogue, so callbacks and API responses always agree; a code
 * this build's catalogue does not know yet (a newer producer) keeps the producer's description.
 */
export function toCallbackBody(eventId: string, occurredAt: string, change: StatusChange): CallbackBody {
  const { objectType, reference } = OBJECT[change.type];
  const code = change.statusCode ?? null;
  const description =
    code && isKnownStatusCode(code) ? statusOf(code).statusDescription : (change.statusDescription ?? null);
  return {
    eventId,
    type: change.type,
    objectType,
    objectId: change.objectId,
    shopId: change.shopId,
    [reference]: change.merchantReference,
    sequence: change.sequence,
    status: change.status,
    previousStatus: change.previousStatus,
    statusCode: code,
    statusDescription: description,
    cost: {
      amount: change.cost.amount,
      currency: change.cost.currency,
      ...(change.cost.tokenStandard ? { tokenStandard: change.cost.tokenStandard } : {}),
    },
    ...(change.instructions
      ? {
          instructions: {
            method: change.instructions.method,
            amount: change.instructions.amount,
            currency: change.instructions.currency,
            deeplinks: { app: change.instructions.deeplinks.app, universal: change.instructions.deeplinks.universal },
            qr: change.instructions.qr,
          },
        }
      : {}),
    occurredAt,
  };
}
