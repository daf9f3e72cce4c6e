import {
  getPayoutByMerchantIdQuery,
  CardRef,
  createPayoutCommand,
  getPayoutQuery,
  parsePayload,
  PayoutCommandTypes,
  PayoutEventTypes,
  PayoutView,
  resolvePayoutCommand,
  ReplyTopics,
  serviceCommandTopics,
  Topics,
} from '@payments/contracts';
import { defineTransferKind } from '@payments/transfers';
import { maskDetails } from '@payments/transfers-domain';
import { Init1764200000000 } from './migrations/1764200000000-init';
import { payeeCardsMigration } from './migrations/1764900000000-payee-cards';
import { PayoutLink1765300000000 } from './migrations/1765300000000-payout-link';
import { PayoutCancelled1765300000002 } from './migrations/1765300000002-payout-cancelled';
import { OpsViews1766100000000 } from './migrations/1766100000000-ops-views';
import { PayoutResolvedBy1766200000302 } from './migrations/1766200000302-resolved-by';
import { PayoutProviderSends1766300000329 } from './migrations/1766300000329-provider-sends';
import { PayoutEntity } from './payout.entity';
import { PayoutLinkHandler, payoutLinkStatusOf } from './payout-link/payout-link.handler';
import { PayoutLinkExpirySweeper } from './payout-link/payout-link-expiry.sweeper';

function maskedCards(cards: Record<string, CardRef> | null): Record<string, string> {
  return Object.fromEntries(Object.entries(cards ?? {}).map(([field, card]) => [field, card.masked]));
}

/** A payout link takes the recipient's details while the payout waits for them and has not expired. */
export function linkIsLive(p: PayoutEntity, now: Date): boolean {
  return (
    p.status === 'registered' &&
    p.linkHash !== null &&
    p.linkUsedAt === null &&
    p.linkExpiresAt !== null &&
    p.linkExpiresAt.getTime() > now.getTime()
  );
}

/** Payouts: money to a payee through the shop's payout method, on the one transfer pipeline. */
export const payoutKind = defineTransferKind<PayoutEntity, PayoutView>({
  kind: 'payout',
  service: 'payouts',
  noun: 'payout',
  entity: PayoutEntity,
  migrations: [
    Init1764200000000,
    PayoutLink1765300000000,
    PayoutCancelled1765300000002,
    OpsViews1766100000000,
    PayoutResolvedBy1766200000302,
    PayoutProviderSends1766300000329,
  ],
  extraControllers: [PayoutLinkHandler],
  extraProviders: [PayoutLinkExpirySweeper],
  cardMigrations: (vault) => [payeeCardsMigration(vault)],
  merchantIdField: 'merchantPayoutId',
  idField: 'payoutId',
  topics: {
    // One topic per audience (decision 263): merchants, payers, operators.
    commands: serviceCommandTopics('payouts'),
    events: Topics.payoutsEvents,
    replies: [ReplyTopics.gateway, ReplyTopics.backoffice, ReplyTopics.checkout],
  },
  commandTypes: PayoutCommandTypes,
  statusChangedType: PayoutEventTypes.statusChanged,
  dispatch: { idPrefix: 'pout', referenceColumn: 'payout_id' },
  parseCreate(message) {
    const cmd = parsePayload(createPayoutCommand, message.payload, message.type);
    return {
      id: cmd.payoutId,
      shopId: cmd.shopId,
      merchantId: cmd.merchantPayoutId,
      provider: cmd.provider, // the payout method's provider, as `methods` resolved it
      cost: cmd.cost,
      description: cmd.description,
      callbackUrl: cmd.callbackUrl,
      own: {
        method: cmd.method,
        cryptoTokenStandard: cmd.cryptoTokenStandard ?? null,
        instrumentType: cmd.instrumentType ?? null,
        walletType: cmd.walletType ?? null,
        payee: cmd.payee,
        payeeCards: cmd.payeeCards ?? null,
        linkHash: cmd.hosted?.linkHash ?? null,
        linkExpiresAt: cmd.hosted ? new Date(cmd.hosted.expiresAt) : null,
        linkUsedAt: null,
        pageLocale: cmd.hosted?.locale ?? null,
        redirectUrls: cmd.hosted?.redirectUrls ?? null,
      },
    };
  },
  // A payout via payment page waits for its recipient: nothing goes to the provider before.
  awaitsDetails: (p) => p.linkHash !== null && p.linkUsedAt === null,
  // Paid from the shop's balance: the ledger holds amount + fee before the payout is accepted (decision 273).
  funds: {
    requester: 'payouts',
    request: (t) => ({ payoutId: t.id, shopId: t.shopId, provider: t.provider, method: t.own.method!, cost: t.cost }),
  },
  cardsOf: (p) => Object.fromEntries(Object.entries(p.payeeCards ?? {}).map(([f, card]) => [`payee.${f}`, card.token])),
  parseGet(message) {
    const q = parsePayload(getPayoutQuery, message.payload, message.type);
    return { id: q.payoutId, shopId: q.shopId };
  },
  parseGetByMerchantId(message) {
    const q = parsePayload(getPayoutByMerchantIdQuery, message.payload, message.type);
    return { merchantId: q.merchantPayoutId, shopId: q.shopId };
  },
  parseResolve(message) {
    const cmd = parsePayload(resolvePayoutCommand, message.payload, message.type);
    return { id: cmd.payoutId, action: cmd.action, operator: cmd.operator };
  },
  view: (p, parts) => ({
    ...parts.head,
    payout: {
      merchantPayoutId: p.merchantPayoutId,
      method: p.method,
      cost: parts.cost,
      ...parts.reported,
      ...(p.cryptoTokenStandard ? { cryptoTokenStandard: p.cryptoTokenStandard } : {}),
      ...parts.description,
    },
    ...(p.instrumentType ? { instrumentType: p.instrumentType } : {}),
    ...(p.walletType ? { walletType: p.walletType } : {}),
    payee: { ...maskDetails(p.payee), ...maskedCards(p.payeeCards) },
    ...(p.linkExpiresAt
      ? {
          data: {
            ...(linkIsLive(p, parts.now) ? { expiresAt: p.linkExpiresAt.toISOString() } : {}),
            payoutLinkStatus: payoutLinkStatusOf(p, parts.now),
          },
        }
      : {}),
    ...parts.tail,
  }),
});
