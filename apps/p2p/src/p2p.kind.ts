import {
  getP2pByMerchantIdQuery,
  createP2pCommand,
  getP2pQuery,
  P2pCommandTypes,
  P2pEventTypes,
  P2pPartyCommand,
  P2pPartyView,
  P2pView,
  parsePayload,
  resolveP2pCommand,
  ReplyTopics,
  serviceCommandTopics,
  Topics,
} from '@payments/contracts';
import { defineTransferKind } from '@payments/transfers';
import { maskDetails } from '@payments/transfers-domain';
import { Init1764200000001 } from './migrations/1764200000001-init';
import { partyCardsMigration } from './migrations/1764900000001-party-cards';
import { OpsViews1766100000000 } from './migrations/1766100000000-ops-views';
import { P2pResolvedBy1766200000303 } from './migrations/1766200000303-resolved-by';
import { P2pProviderSends1766300000329 } from './migrations/1766300000329-provider-sends';
import { P2pEntity } from './p2p.entity';

function party(key: 'sender' | 'recipient', value: P2pPartyCommand | null): Record<string, P2pPartyView> {
  if (!value) return {};
  const { card, ...rest } = value;
  return { [key]: { ...maskDetails(rest), ...(card ? { cardNumber: card.masked } : {}) } };
}

/** P2P transactions: card to card between two people, on the one transfer pipeline. */
export const p2pKind = defineTransferKind<P2pEntity, P2pView>({
  kind: 'p2p',
  service: 'p2p',
  noun: 'P2P transaction',
  entity: P2pEntity,
  migrations: [Init1764200000001, OpsViews1766100000000, P2pResolvedBy1766200000303, P2pProviderSends1766300000329],
  cardMigrations: (vault) => [partyCardsMigration(vault)],
  merchantIdField: 'merchantP2pId',
  idField: 'p2pId',
  topics: {
    // One topic per audience (decision 263): merchants, operators.
    commands: serviceCommandTopics('p2p'),
    events: Topics.p2pEvents,
    replies: [ReplyTopics.gateway, ReplyTopics.backoffice],
  },
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
  cardsOf: (p) => ({
    ...(p.sender?.card ? { sender: p.sender.card.token } : {}),
    ...(p.recipient?.card ? { recipient: p.recipient.card.token } : {}),
  }),
  parseGet(message) {
    const q = parsePayload(getP2pQuery, message.payload, message.type);
    return { id: q.p2pId, shopId: q.shopId };
  },
  parseGetByMerchantId(message) {
    const q = parsePayload(getP2pByMerchantIdQuery, message.payload, message.type);
    return { merchantId: q.merchantP2pId, shopId: q.shopId };
  },
  parseResolve(message) {
    const cmd = parsePayload(resolveP2pCommand, message.payload, message.type);
    return { id: cmd.p2pId, action: cmd.action, operator: cmd.operator };
  },
  view: (p, parts) => ({
    ...parts.head,
    p2p: { merchantP2pId: p.merchantP2pId, cost: parts.cost, ...parts.reported, ...parts.description },
    ...party('sender', p.sender),
    ...party('recipient', p.recipient),
    ...parts.tail,
  }),
});
