import { LedgerOpsCommandTypes } from './ledger';
import { MerchantCallbackCommandTypes } from './merchant-callbacks';
import { MethodQueryTypes } from './methods';
import { OrderCommandTypes } from './orders';
import { P2pCommandTypes } from './p2p';
import { PayoutCommandTypes } from './payouts';
import { RouteCommandTypes } from './routing';
import { ReplyTopics, Topics } from './topics';

/**
 * Who a command comes from (decision 263): merchants through the gateway, payers through checkout,
 * operators through the backoffice, providers through callbacks-ingest. Each audience has its own
 * command topic per domain service, and Kafka ACLs let each principal write only its own.
 */
export const Audiences = ['merchant', 'payer', 'operator', 'provider'] as const;
export type Audience = (typeof Audiences)[number];

/** The requester (and so the reply topic, ReplyTopics) of each audience. */
export const audienceRequester = {
  merchant: 'gateway',
  payer: 'checkout',
  operator: 'backoffice',
  provider: 'callbacks-ingest',
} as const satisfies Record<Audience, keyof typeof ReplyTopics>;

/** The domain services that take commands by audience. */
export const CommandServices = ['orders', 'payouts', 'p2p', 'merchant-callbacks', 'methods', 'ledger'] as const;
export type CommandService = (typeof CommandServices)[number];

/**
 * The merchants' topic of each service: the names kept from before the audiences were split. A
 * function, not a constant: topics.ts imports this module (topicSpecs), so Topics is read late.
 */
const merchantTopics = (): Record<CommandService, string> => ({
  orders: Topics.ordersCommands,
  payouts: Topics.payoutsCommands,
  p2p: Topics.p2pCommands,
  'merchant-callbacks': Topics.merchantCallbacksCommands,
  methods: Topics.methodsQueries,
  // The ledger takes no merchant command by audience: `ledger.commands` carries the other
  // services' requests (holds, the gateway's balance reads) and is no audience path.
  ledger: Topics.ledgerCommands,
});

const audienceSuffix: Record<Exclude<Audience, 'merchant'>, string> = {
  payer: 'payer-commands',
  operator: 'ops-commands',
  provider: 'provider-commands',
};

const M = 'merchant' as const;
const P = 'payer' as const;
const O = 'operator' as const;
const V = 'provider' as const;

/**
 * THE table: every command type a domain service takes, with the one service it goes to and the
 * audiences that may send it. A type comes through its audiences' topics only; anything else is
 * refused by the consumer (libs/messaging, KafkaTransport).
 */
export const commandAudiences: Readonly<
  Record<string, { readonly service: CommandService; readonly audiences: readonly Audience[] }>
> = {
  [OrderCommandTypes.create]: { service: 'orders', audiences: [M] },
  [OrderCommandTypes.get]: { service: 'orders', audiences: [M] },
  [OrderCommandTypes.getByMerchantId]: { service: 'orders', audiences: [M] },
  [OrderCommandTypes.cancel]: { service: 'orders', audiences: [M] },
  // A provider's refund too: Payme's CancelTransaction after PerformTransaction (decision 297).
  [OrderCommandTypes.refund]: { service: 'orders', audiences: [M, V] },
  // Click's Prepare and Complete read the order they are about (callbacks-ingest).
  [OrderCommandTypes.getForOperator]: { service: 'orders', audiences: [O, V] },
  [OrderCommandTypes.listForOperator]: { service: 'orders', audiences: [O] },
  [OrderCommandTypes.resolve]: { service: 'orders', audiences: [O] },
  [OrderCommandTypes.getForCheckout]: { service: 'orders', audiences: [P] },
  [OrderCommandTypes.payHosted]: { service: 'orders', audiences: [P] },
  // Operators' routing rules per shop and method (decision 320): `orders.ops-commands`.
  [RouteCommandTypes.set]: { service: 'orders', audiences: [O] },
  [RouteCommandTypes.get]: { service: 'orders', audiences: [O] },
  [RouteCommandTypes.delete]: { service: 'orders', audiences: [O] },
  [PayoutCommandTypes.create]: { service: 'payouts', audiences: [M] },
  [PayoutCommandTypes.get]: { service: 'payouts', audiences: [M] },
  [PayoutCommandTypes.getByMerchantId]: { service: 'payouts', audiences: [M] },
  [PayoutCommandTypes.listForOperator]: { service: 'payouts', audiences: [O] },
  [PayoutCommandTypes.resolve]: { service: 'payouts', audiences: [O] },
  [PayoutCommandTypes.getForCheckout]: { service: 'payouts', audiences: [P] },
  [PayoutCommandTypes.submitDetails]: { service: 'payouts', audiences: [P] },
  [P2pCommandTypes.create]: { service: 'p2p', audiences: [M] },
  [P2pCommandTypes.get]: { service: 'p2p', audiences: [M] },
  [P2pCommandTypes.getByMerchantId]: { service: 'p2p', audiences: [M] },
  [P2pCommandTypes.listForOperator]: { service: 'p2p', audiences: [O] },
  [P2pCommandTypes.resolve]: { service: 'p2p', audiences: [O] },
  [MerchantCallbackCommandTypes.feed]: { service: 'merchant-callbacks', audiences: [M] },
  [MerchantCallbackCommandTypes.list]: { service: 'merchant-callbacks', audiences: [O] },
  [MerchantCallbackCommandTypes.get]: { service: 'merchant-callbacks', audiences: [O] },
  [MerchantCallbackCommandTypes.replay]: { service: 'merchant-callbacks', audiences: [O] },
  [MerchantCallbackCommandTypes.replayMany]: { service: 'merchant-callbacks', audiences: [O] },
  [MethodQueryTypes.paymentList]: { service: 'methods', audiences: [M, P, O] },
  [MethodQueryTypes.payoutList]: { service: 'methods', audiences: [M, P, O] },
  [MethodQueryTypes.payoutFields]: { service: 'methods', audiences: [M] },
  [MethodQueryTypes.payoutResolve]: { service: 'methods', audiences: [M, P] },
  [MethodQueryTypes.create]: { service: 'methods', audiences: [O] },
  [MethodQueryTypes.update]: { service: 'methods', audiences: [O] },
  [MethodQueryTypes.delete]: { service: 'methods', audiences: [O] },
  // Operators' settings of the books (decision 303): `ledger.ops-commands`.
  [LedgerOpsCommandTypes.setFee]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.listFees]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.deleteFee]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.setSettlement]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.getSettlement]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.setRate]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.listRates]: { service: 'ledger', audiences: [O] },
  // Operators' balances, statements and manual adjustments (decisions 308, 309).
  [LedgerOpsCommandTypes.getShopBalance]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.listShopTransactions]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.adjustBalance]: { service: 'ledger', audiences: [O] },
  // Credits waiting for a rate, and the release of a parked one (decision 344).
  [LedgerOpsCommandTypes.listAwaitingCredits]: { service: 'ledger', audiences: [O] },
  [LedgerOpsCommandTypes.releaseCredit]: { service: 'ledger', audiences: [O] },
};

/** Where `audience` sends commands to `service` (contract name, without prefix). */
export function commandTopic(service: CommandService, audience: Audience): string {
  if (audience === 'merchant') return merchantTopics()[service];
  return `${service}.${audienceSuffix[audience]}`;
}

/** The audiences of `service` that have at least one command type, in the order of Audiences. */
export function serviceAudiences(service: CommandService): Audience[] {
  return Audiences.filter((a) =>
    Object.values(commandAudiences).some((c) => c.service === service && c.audiences.includes(a)),
  );
}

/** Every command topic of `service`, one per audience that has a command for it. */
export function serviceCommandTopics(service: CommandService): string[] {
  return serviceAudiences(service).map((a) => commandTopic(service, a));
}

/** Every audience command topic beside the merchants' (which are in Topics). */
export function audienceCommandTopics(): string[] {
  return CommandServices.flatMap((s) =>
    serviceAudiences(s)
      .filter((a) => a !== 'merchant')
      .map((a) => commandTopic(s, a)),
  );
}

/** Command topic (contract name) → its service and audience, built at first use. */
let topicPaths: Map<string, { service: CommandService; audience: Audience }> | undefined;

/**
 * The service and audience of a command topic (contract name), or undefined if it is not one.
 * Every consumed message asks this (the audience guard), so the table is built once: searching
 * `commandAudiences` for each cost a consumer about 5 % of its CPU.
 */
export function commandTopicAudience(topic: string): { service: CommandService; audience: Audience } | undefined {
  if (!topicPaths) {
    topicPaths = new Map();
    for (const service of CommandServices)
      for (const audience of serviceAudiences(service)) {
        const path = commandTopic(service, audience);
        if (!topicPaths.has(path)) topicPaths.set(path, { service, audience });
      }
  }
  const path = topicPaths.get(topic);
  return path && { ...path };
}

/** The command types `audience` may send to `service`. */
export function audienceCommandTypes(service: CommandService, audience: Audience): string[] {
  return Object.entries(commandAudiences)
    .filter(([, c]) => c.service === service && c.audiences.includes(audience))
    .map(([type]) => type);
}

/** Whether `type` may come through the command topic `topic`: false for a type of another audience. */
export function allowedOnTopic(type: string, topic: string): boolean {
  const path = commandTopicAudience(topic);
  const entry = commandAudiences[type];
  return !!path && !!entry && entry.service === path.service && entry.audiences.includes(path.audience);
}

/** The reply topic (contract name) a command that came through `topic` may be answered on. */
export function audienceReplyTopic(topic: string): string | undefined {
  const path = commandTopicAudience(topic);
  return path && ReplyTopics[audienceRequester[path.audience]];
}
