import {
  createP2pCommand,
  getP2pQuery,
  P2pCommandTypes,
  P2pEventTypes,
  P2pParty,
  P2pView,
  parsePayload,
  resolveP2pCommand,
  Topics,
} from '@payments/contracts';
import { defineTransferKind } from '@payments/transfers';
import { maskDetails } from '@payments/transfers-domain';
import { Init1764200000001 } from './migrations/1764200000001-init';
import { P2pEntity } from './p2p.entity';

function party(key: 'sender' | 'recipient', value: P2pParty | null): Record<string, P2pParty> {
  return value ? { [key]: maskDetails(value as Record<string, unknown>) as P2pParty } : {};
}

/** P2P transactions: card to card between two people, on the one transfer pipeline. */
export const p2pKind = defineTransferKind<P2pEntity, P2pView>({
  kind: 'p2p',
  service: 'p2p',
  noun: 'P2P transaction',
  entity: P2pEntity,
  migrations: [Init1764200000001],
  merchantIdField: 'merchantP2pId',
  idField: 'p2pId',
  topics: { commands: Topics.p2pCommands, events: Topics.p2pEvents },
  commandTypes: P2pCommandTypes,
  statusChangedType: P2pEventTypes.statusChanged,
  dispatch: { idPrefix: 'p2p', referenceColumn: 'p2p_id' },
  parseCreate(message, adapterProvider) {
    const cmd = parsePayload(createP2pCommand, message.payload, message.type);
    return {
      id: cmd.p2pId,
      shopId: cmd.shopId,
      merchantId: cmd.merchantP2pId,
      provider: adapterProvider, // P2P has no method to choose a provider: this instance's adapter sends it
      cost: cmd.cost,
      description: cmd.description,
      callbackUrl: cmd.callbackUrl,
      own: { sender: cmd.sender ?? null, recipient: cmd.recipient ?? null },
    };
  },
  parseGet(message) {
    const q = parsePayload(getP2pQuery, message.payload, message.type);
    return { id: q.p2pId, shopId: q.shopId };
  },
  parseResolve(message) {
    const cmd = parsePayload(resolveP2pCommand, message.payload, message.type);
    return { id: cmd.p2pId, action: cmd.action };
  },
  view: (p, parts) => ({
    ...parts.head,
    p2p: { merchantP2pId: p.merchantP2pId, cost: parts.cost, ...parts.reported, ...parts.description },
    ...party('sender', p.sender),
    ...party('recipient', p.recipient),
    ...parts.tail,
  }),
});
