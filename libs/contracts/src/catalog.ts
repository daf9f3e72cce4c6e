import { z } from 'zod';
import {
  deliveryDetailView,
  deliveryPage,
  deliveryRef,
  deliveryView,
  listDeliveriesQuery,
  MerchantCallbackCommandTypes,
  replayDeliveriesCommand,
  replayResult,
  readFeedQuery,
  feedPage,
} from './merchant-callbacks';
import {
  createMethodCommand,
  deleteMethodCommand,
  listMethodsQuery,
  methodListView,
  MethodQueryTypes,
  methodView,
  payoutFieldsQuery,
  payoutFieldsView,
  resolvedPayoutMethod,
  resolvePayoutMethodQuery,
  updateMethodCommand,
} from './methods';
import {
  cancelOrderCommand,
  checkoutOrderView,
  createOrderCommand,
  getOrderForCheckoutQuery,
  payHostedCommand,
  getOrderQuery,
  getOrderForOperatorQuery,
  getOrderByMerchantIdQuery,
  listOrdersForOperatorQuery,
  OrderCommandTypes,
  OrderEventTypes,
  orderPage,
  orderStatusChanged,
  orderView,
  refundOrderCommand,
  resolveOrderCommand,
} from './orders';
import {
  createP2pCommand,
  getP2pQuery,
  P2pCommandTypes,
  P2pEventTypes,
  p2pStatusChanged,
  p2pView,
  resolveP2pCommand,
  getP2pByMerchantIdQuery,
  p2pPage,
} from './p2p';
import {
  createPayoutCommand,
  getPayoutQuery,
  PayoutCommandTypes,
  PayoutEventTypes,
  payoutStatusChanged,
  payoutView,
  checkoutPayoutView,
  getPayoutForCheckoutQuery,
  submitPayoutDetailsCommand,
  resolvePayoutCommand,
  getPayoutByMerchantIdQuery,
  payoutPage,
} from './payouts';
import { listTransfersForOperatorQuery } from './transfers';
import { ProviderCallbackTypes, providerCallbackReceived, providerEvent, ProviderEventTypes } from './providers';
import { ShopSettingsTypes, shopSettingsPublished } from './shops';
import { uuid } from './schema';
import {
  balanceTransactionPage,
  balanceView,
  getBalanceQuery,
  listBalanceTransactionsQuery,
  LedgerCommandTypes,
  refundRelease,
  refundReservation,
  releaseRefundCommand,
  reserveRefundCommand,
  payoutRelease,
  payoutReservation,
  releasePayoutCommand,
  reservePayoutCommand,
} from './ledger';
import { ledgerOperatorContract, request, routeCommandMessages } from './catalog-operators';
import { ledgerEventsContract } from './ledger-events';
import { TopicName, Topics } from './topics';
import { allowedOnTopic, audienceRequester, commandTopic, commandTopicAudience, serviceAudiences } from './audiences';

/**
 * Which messages travel on which topic, keyed by what, between which services: the registry the
 * AsyncAPI document (docs/asyncapi.yaml) is generated from. Each message names the schema its
 * consumer parses it with; a request names the schema of the result its reply carries.
 */
export interface MessageContract {
  /** The envelope's `type`. */
  readonly type: string;
  readonly summary: string;
  readonly payload: z.ZodType;
  /** For a request: the `result` of its `<type>.reply`, sent to the topic in its `reply-topic` header. */
  readonly reply?: z.ZodType;
}

export interface TopicContract {
  readonly topic: TopicName | string;
  readonly description: string;
  /** What the message key is: all messages of one aggregate stay in order on one partition. */
  readonly key: string;
  readonly keySchema: z.ZodType;
  readonly publishedBy: readonly string[];
  readonly consumedBy: readonly string[];
  /**
   * The consumer groups that read it, where a service's group is not its name: the ledger reads
   * the events it books in `ledger-events` (decision 352). Otherwise `consumedBy`.
   */
  readonly consumerGroups?: readonly string[];
  readonly messages: readonly MessageContract[];
}

/** A provider event is keyed by what it is about: our order, payout or P2P id. */
const reference = z.string().min(1).max(128);

/** One entry per service's commands, every audience together: split by `byAudience` below. */
const serviceContracts: readonly TopicContract[] = [
  {
    topic: Topics.ordersCommands,
    description:
      'Requests from the gateway (and from the hosted pages of checkout) to the orders service, each answered on the reply topic it names.',
    key: "The order id (the gateway assigns it before it asks to create the order); the shop id for a read by the merchant's own id and for a shop's route",
    keySchema: uuid(),
    publishedBy: ['gateway', 'checkout'],
    consumedBy: ['orders'],
    messages: [
      request(OrderCommandTypes.create, 'Create a payment order', createOrderCommand, orderView),
      request(OrderCommandTypes.get, 'Read an order of a shop', getOrderQuery, orderView),
      request(
        OrderCommandTypes.getByMerchantId,
        "Read an order of a shop by the merchant's own id",
        getOrderByMerchantIdQuery,
        orderView,
      ),
      request(
        OrderCommandTypes.getForOperator,
        "Read any shop's order (operators)",
        getOrderForOperatorQuery,
        orderView,
      ),
      request(
        OrderCommandTypes.listForOperator,
        "List any shop's orders, newest first, by status, shop or merchant id (operators)",
        listOrdersForOperatorQuery,
        orderPage,
      ),
      request(OrderCommandTypes.cancel, 'Cancel an unpaid order', cancelOrderCommand, orderView),
      request(
        OrderCommandTypes.resolve,
        "An operator's decision on an order in need_action",
        resolveOrderCommand,
        orderView,
      ),
      request(OrderCommandTypes.refund, 'Refund a paid order, partly or fully', refundOrderCommand, orderView),
      request(
        OrderCommandTypes.getForCheckout,
        'Read a hosted order for its payment page (checkout)',
        getOrderForCheckoutQuery,
        checkoutOrderView,
      ),
      request(
        OrderCommandTypes.payHosted,
        "The payer's one payment of a hosted link (checkout)",
        payHostedCommand,
        checkoutOrderView,
      ),
      ...routeCommandMessages,
    ],
  },
  {
    topic: Topics.payoutsCommands,
    description:
      'Requests from the gateway (and from the payout pages of checkout) to the payouts service, each answered on the reply topic it names.',
    key: "The payout id (the gateway assigns it before it asks to create the payout); the shop id for a read by the merchant's own id",
    keySchema: uuid(),
    publishedBy: ['gateway', 'checkout'],
    consumedBy: ['payouts'],
    messages: [
      request(PayoutCommandTypes.create, 'Create a payout', createPayoutCommand, payoutView),
      request(PayoutCommandTypes.get, 'Read a payout of a shop', getPayoutQuery, payoutView),
      request(
        PayoutCommandTypes.getByMerchantId,
        "Read a payout of a shop by the merchant's own id",
        getPayoutByMerchantIdQuery,
        payoutView,
      ),
      request(
        PayoutCommandTypes.listForOperator,
        "List any shop's payouts, newest first, by id, status, shop or merchant id (operators)",
        listTransfersForOperatorQuery,
        payoutPage,
      ),
      request(
        PayoutCommandTypes.resolve,
        "An operator's decision on a payout in need_action",
        resolvePayoutCommand,
        payoutView,
      ),
      request(
        PayoutCommandTypes.getForCheckout,
        'Read a payout via payment page for its payout page (checkout)',
        getPayoutForCheckoutQuery,
        checkoutPayoutView,
      ),
      request(
        PayoutCommandTypes.submitDetails,
        "The recipient's one submission of a payout link (checkout)",
        submitPayoutDetailsCommand,
        checkoutPayoutView,
      ),
    ],
  },
  {
    topic: Topics.p2pCommands,
    description: 'Requests from the gateway to the P2P service, each answered on the reply topic it names.',
    key: "The P2P transaction id (the gateway assigns it before it asks to create the transaction); the shop id for a read by the merchant's own id",
    keySchema: uuid(),
    publishedBy: ['gateway'],
    consumedBy: ['p2p'],
    messages: [
      request(P2pCommandTypes.create, 'Create a P2P transaction', createP2pCommand, p2pView),
      request(P2pCommandTypes.get, 'Read a P2P transaction of a shop', getP2pQuery, p2pView),
      request(
        P2pCommandTypes.getByMerchantId,
        "Read a P2P transaction of a shop by the merchant's own id",
        getP2pByMerchantIdQuery,
        p2pView,
      ),
      request(
        P2pCommandTypes.listForOperator,
        "List any shop's P2P transactions, newest first, by id, status, shop or merchant id (operators)",
        listTransfersForOperatorQuery,
        p2pPage,
      ),
      request(
        P2pCommandTypes.resolve,
        "An operator's decision on a P2P transaction in need_action",
        resolveP2pCommand,
        p2pView,
      ),
    ],
  },
  {
    topic: Topics.methodsQueries,
    description:
      "Questions about a shop's payment and payout methods, and operators' changes to them, from the gateway (and the hosted pages of checkout) to the methods service; each answered on the reply topic it names.",
    key: 'The shop id',
    keySchema: uuid(),
    publishedBy: ['gateway', 'checkout'],
    consumedBy: ['methods'],
    messages: [
      request(MethodQueryTypes.paymentList, "List a shop's payment methods", listMethodsQuery, methodListView),
      request(MethodQueryTypes.payoutList, "List a shop's payout methods", listMethodsQuery, methodListView),
      request(MethodQueryTypes.payoutFields, 'Which payee fields a payout needs', payoutFieldsQuery, payoutFieldsView),
      request(
        MethodQueryTypes.payoutResolve,
        'Is a payout method usable for a currency, wallet type and amount',
        resolvePayoutMethodQuery,
        resolvedPayoutMethod,
      ),
      request(MethodQueryTypes.create, 'Create a payment or payout method', createMethodCommand, methodView),
      request(MethodQueryTypes.update, 'Change a payment or payout method', updateMethodCommand, methodView),
      request(MethodQueryTypes.delete, 'Delete a payment or payout method', deleteMethodCommand, methodView),
    ],
  },
  {
    topic: Topics.ledgerCommands,
    description:
      "Requests to the ledger: the payouts service asks for a payout's hold before it accepts the payout (decision 273), the orders service for a refund's (decision 276); the gateway reads balances.",
    key: "The shop id: a shop's holds are decided in order, against one balance",
    keySchema: uuid(),
    publishedBy: ['payouts', 'orders', 'gateway'],
    consumedBy: ['ledger'],
    messages: [
      request(
        LedgerCommandTypes.reservePayout,
        "Reserve a payout's amount plus its fee from the shop's available balance, or refuse it (1-06-02)",
        reservePayoutCommand,
        payoutReservation,
      ),
      request(
        LedgerCommandTypes.releasePayout,
        'Void the hold of a payout that was never created',
        releasePayoutCommand,
        payoutRelease,
      ),
      request(
        LedgerCommandTypes.reserveRefund,
        "Reserve a refund's debit from the shop's available balance, or refuse it (1-06-03)",
        reserveRefundCommand,
        refundReservation,
      ),
      request(
        LedgerCommandTypes.releaseRefund,
        'Void the hold of a refund that was never created',
        releaseRefundCommand,
        refundRelease,
      ),
      request(LedgerCommandTypes.getBalance, "Read a shop's balances (GET /balance)", getBalanceQuery, balanceView),
      request(
        LedgerCommandTypes.listTransactions,
        "List a shop's ledger transactions, newest first (GET /balance/transactions)",
        listBalanceTransactionsQuery,
        balanceTransactionPage,
      ),
    ],
  },
  ledgerOperatorContract,
  {
    topic: Topics.merchantCallbacksCommands,
    description: "Operators' requests about merchant-callback deliveries, from the gateway to merchant-callbacks.",
    key: 'The delivery id, or the shop or object id a list or replay is about ("all" and "replay" when none is named)',
    keySchema: z.string().min(1).max(128),
    publishedBy: ['gateway'],
    consumedBy: ['merchant-callbacks'],
    messages: [
      request(MerchantCallbackCommandTypes.list, 'List deliveries, newest first', listDeliveriesQuery, deliveryPage),
      request(
        MerchantCallbackCommandTypes.feed,
        "A shop's events feed after a position (GET /events)",
        readFeedQuery,
        feedPage,
      ),
      request(MerchantCallbackCommandTypes.get, 'Read one delivery with its attempts', deliveryRef, deliveryDetailView),
      request(MerchantCallbackCommandTypes.replay, 'Send one delivery again', deliveryRef, deliveryView),
      request(
        MerchantCallbackCommandTypes.replayMany,
        'Send again the deliveries named, or those matching a filter',
        replayDeliveriesCommand,
        replayResult,
      ),
    ],
  },
  {
    topic: Topics.providerCallbacksReceived,
    description: 'Every provider callback exactly as it came, for audit and replay. Nothing consumes it yet.',
    key: 'Our order, payout or P2P id the callback is about',
    keySchema: reference,
    publishedBy: ['callbacks-ingest'],
    consumedBy: [],
    messages: [
      {
        type: ProviderCallbackTypes.received,
        summary: 'A provider callback as it came',
        payload: providerCallbackReceived,
      },
    ],
  },
  {
    topic: Topics.providerEvents,
    description: "Provider callbacks in our vocabulary, whichever provider sent them; each service takes its kind's.",
    key: 'Our order, payout or P2P id (the `reference`)',
    keySchema: reference,
    publishedBy: ['callbacks-ingest'],
    consumedBy: ['orders', 'payouts', 'p2p'],
    messages: [{ type: ProviderEventTypes.event, summary: 'A provider callback, normalized', payload: providerEvent }],
  },
  {
    topic: Topics.ordersEvents,
    description:
      'Every status change of every order, in order per order; merchant-callbacks sends them to merchants, the ledger books completions and refunds.',
    key: 'The order id',
    keySchema: uuid(),
    publishedBy: ['orders'],
    consumedBy: ['merchant-callbacks', 'ledger'],
    consumerGroups: ['merchant-callbacks', 'ledger-events'],
    messages: [
      { type: OrderEventTypes.statusChanged, summary: 'An order changed status', payload: orderStatusChanged },
    ],
  },
  {
    topic: Topics.payoutsEvents,
    description:
      "Every status change of every payout, in order per payout; merchant-callbacks sends them to merchants, the ledger posts or voids the payout's hold.",
    key: 'The payout id',
    keySchema: uuid(),
    publishedBy: ['payouts'],
    consumedBy: ['merchant-callbacks', 'ledger'],
    consumerGroups: ['merchant-callbacks', 'ledger-events'],
    messages: [
      { type: PayoutEventTypes.statusChanged, summary: 'A payout changed status', payload: payoutStatusChanged },
    ],
  },
  {
    topic: Topics.p2pEvents,
    description:
      "Every status change of every P2P transaction, in order per transaction; merchant-callbacks sends them to merchants, the ledger posts a completed one's fee (decision 312).",
    key: 'The P2P transaction id',
    keySchema: uuid(),
    publishedBy: ['p2p'],
    consumedBy: ['merchant-callbacks', 'ledger'],
    consumerGroups: ['merchant-callbacks', 'ledger-events'],
    messages: [
      { type: P2pEventTypes.statusChanged, summary: 'A P2P transaction changed status', payload: p2pStatusChanged },
    ],
  },
  ledgerEventsContract,
  {
    topic: Topics.shopsSettings,
    description:
      'The whole current settings of each shop (compacted: the latest snapshot per shop is kept). Only merchant-callbacks reads the callback secret; only callbacks-ingest reads the provider accounts (decision 341). Both travel sealed.',
    key: 'The shop id',
    keySchema: uuid(),
    publishedBy: ['gateway'],
    consumedBy: ['orders', 'merchant-callbacks'],
    messages: [
      { type: ShopSettingsTypes.snapshot, summary: 'The current settings of one shop', payload: shopSettingsPublished },
    ],
  },
];

/**
 * A service's commands split into one topic per audience (decision 263): each topic carries the
 * types `commandAudiences` gives that audience, published by that audience's requester only.
 */
function byAudience(contract: TopicContract): TopicContract[] {
  const path = commandTopicAudience(contract.topic);
  if (!path) return [contract];
  return serviceAudiences(path.service).map((audience) => {
    const topic = commandTopic(path.service, audience);
    return {
      ...contract,
      topic,
      description: `${contract.description} This topic carries the commands of the ${audience} audience only (decision 263).`,
      publishedBy: [audienceRequester[audience]],
      messages: contract.messages.filter((m) => allowedOnTopic(m.type, topic)),
    };
  });
}

export const topicContracts: readonly TopicContract[] = serviceContracts.flatMap(byAudience);
