import { z } from 'zod';
import {
  balanceView,
  deletedFee,
  deleteFeeCommand,
  feeListView,
  feeScheduleView,
  getSettlementQuery,
  LedgerOpsCommandTypes,
  listFeesQuery,
  listRatesQuery,
  rateListView,
  rateView,
  setFeeCommand,
  setRateCommand,
  setSettlementCommand,
  settlementView,
} from './ledger';
import {
  adjustBalanceCommand,
  adjustmentView,
  getShopBalanceQuery,
  listShopTransactionsQuery,
  shopTransactionPage,
} from './ledger-adjustments';
import { awaitingCreditList, creditRelease, listAwaitingCreditsQuery, releaseCreditCommand } from './ledger-awaiting';
import {
  deletedRoute,
  deleteRouteCommand,
  getRouteQuery,
  RouteCommandTypes,
  routeView,
  setRouteCommand,
} from './routing';
import type { MessageContract, TopicContract } from './catalog';
import { commandTopic } from './audiences';

/**
 * The operators' contracts of the catalogue (catalog.ts): the ledger's operator topic and the
 * routes' requests, which travel on orders' commands. Kept here so the catalogue stays one
 * screen per service; catalog.ts places them.
 */

/** A request and the `result` its reply carries. */
export const request = (type: string, summary: string, payload: z.ZodType, reply: z.ZodType): MessageContract => ({
  type,
  summary,
  payload,
  reply,
});

/** The routes of a shop per method (decision 320), set by operators through the backoffice: on orders' commands. */
export const routeCommandMessages: readonly MessageContract[] = [
  request(RouteCommandTypes.set, "Set a shop's route for a method (operators)", setRouteCommand, routeView),
  request(RouteCommandTypes.get, "Read a shop's route for a method (operators)", getRouteQuery, routeView),
  request(RouteCommandTypes.delete, "Delete a shop's route for a method (operators)", deleteRouteCommand, deletedRoute),
];

/** Operators' settings of the books (decision 303) and a shop's balances and adjustments (308, 309). */
export const ledgerOperatorContract: TopicContract = {
  topic: commandTopic('ledger', 'operator'),
  description:
    "Operators' settings of the books from the backoffice to the ledger (decision 303): a shop's fees and settlement delay, and rates; a shop's balances and statement, and manual adjustments (decisions 308, 309); the credits waiting for a rate and the release of a parked one (decision 344); each answered on the reply topic it names.",
  key: 'The shop id; the pair (`USD/USDT-TRC20`) for a rate; the credit id for a release; `awaiting-credits` for the list of all shops',
  keySchema: z.string().min(1).max(64),
  publishedBy: ['backoffice'],
  consumedBy: ['ledger'],
  messages: [
    request(LedgerOpsCommandTypes.setFee, "Set a shop's fee for a method and currency", setFeeCommand, feeScheduleView),
    request(LedgerOpsCommandTypes.listFees, "List a shop's fee lines", listFeesQuery, feeListView),
    request(LedgerOpsCommandTypes.deleteFee, "Delete a shop's fee line", deleteFeeCommand, deletedFee),
    request(LedgerOpsCommandTypes.setSettlement, "Set a shop's settlement delay", setSettlementCommand, settlementView),
    request(LedgerOpsCommandTypes.getSettlement, "Read a shop's settlement delay", getSettlementQuery, settlementView),
    request(LedgerOpsCommandTypes.setRate, "Add a pair's rate with its validity", setRateCommand, rateView),
    request(LedgerOpsCommandTypes.listRates, 'List rates, newest validity first', listRatesQuery, rateListView),
    request(
      LedgerOpsCommandTypes.getShopBalance,
      "Read a shop's balances for an operator",
      getShopBalanceQuery,
      balanceView,
    ),
    request(
      LedgerOpsCommandTypes.listShopTransactions,
      "List a shop's ledger transactions for an operator, with who posted each adjustment and why",
      listShopTransactionsQuery,
      shopTransactionPage,
    ),
    request(
      LedgerOpsCommandTypes.adjustBalance,
      "Post a manual adjustment to a shop's available balance, or refuse a debit it cannot cover",
      adjustBalanceCommand,
      adjustmentView,
    ),
    request(
      LedgerOpsCommandTypes.listAwaitingCredits,
      'List the credits waiting in suspense for a rate, parked ones included',
      listAwaitingCreditsQuery,
      awaitingCreditList,
    ),
    request(
      LedgerOpsCommandTypes.releaseCredit,
      'Release a parked credit back to the conversion queue (admins)',
      releaseCreditCommand,
      creditRelease,
    ),
  ],
};
