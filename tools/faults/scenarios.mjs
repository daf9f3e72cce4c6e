// The fault suite's scenarios: what each injects (docs/faults.md has the table with the results).

/**
 * @typedef {{ id: string, name: string, copies?: number, kill?: string, signal?: NodeJS.Signals,
 *   failpoint?: string, crashKafka?: boolean, crashPostgres?: boolean, merchant?: boolean,
 *   rolling?: boolean, replyTopicDeleted?: boolean, unanswered?: boolean, pairs?: boolean,
 *   restartKafka?: boolean, ops?: boolean }} Scenario
 *   ops: an operations scenario (h–k): the load lasts as long as the fault, and every service must
 *   still answer past two Kafka metadata refreshes after it.
 */

/** @type {Scenario[]} */
export const SCENARIOS = [
  { id: 'd', name: 'd: every provider callback three times, concurrently, shuffled', copies: 3 },
  // The ledger too (issue 29): a batch of postings killed half-way must post once after the restart.
  ...['orders', 'gateway', 'callbacks-ingest', 'merchant-callbacks', 'ledger'].map((s) => ({
    id: `b-${s}`,
    name: `b: ${s} killed with SIGKILL mid-batch, restarted`,
    kill: s,
    signal: /** @type {NodeJS.Signals} */ ('SIGKILL'),
  })),
  ...['orders', 'callbacks-ingest'].map((s) => ({
    id: `g-${s}`,
    name: `g: outbox relay of ${s} SIGKILLed between publishing and marking, restarted`,
    failpoint: s,
  })),
  { id: 'a', name: 'a: Kafka broker killed with SIGKILL mid-batch, restarted', crashKafka: true },
  { id: 'c', name: 'c: PostgreSQL stopped with -m immediate mid-batch, restarted', crashPostgres: true },
  ...['orders', 'gateway', 'callbacks-ingest', 'merchant-callbacks'].map((s) => ({
    id: `f-${s}`,
    name: `f: ${s} stopped with SIGTERM mid-batch, restarted`,
    kill: s,
    signal: /** @type {NodeJS.Signals} */ ('SIGTERM'),
  })),
  { id: 'e', name: 'e: merchant endpoint down (503) for a while, then slow', merchant: true },
  {
    id: 'h',
    name: 'h: rolling restart of every service (SIGTERM, new instance id, ready before the next)',
    rolling: true,
    ops: true,
  },
  {
    id: 'i-reply-topic',
    name: "i: the gateway's reply topic deleted with replies in flight, a new gateway instance asks",
    replyTopicDeleted: true,
    ops: true,
  },
  {
    id: 'i-unanswered',
    name: 'i: gateway SIGKILLed with requests unanswered, restarted with a new instance id',
    unanswered: true,
    ops: true,
  },
  {
    id: 'j',
    name: 'j: two instances of every service, one of each pair SIGKILLed mid-load, restarted',
    pairs: true,
    ops: true,
  },
  { id: 'k', name: 'k: Kafka broker stopped with SIGTERM mid-load, restarted', restartKafka: true, ops: true },
];
export const QUICK_IDS = ['d', 'b-orders', 'g-orders', 'a', 'c', 'h'];

/** The domain services the gateway asks over Kafka; i-unanswered stops them (SIGSTOP) so that requests wait. */
export const REPLYING = ['orders', 'payouts', 'p2p', 'methods'];
/** The services that send to the provider: in j, instance n of each sends to sandbox n. */
export const SENDING = ['orders', 'payouts', 'p2p'];
/** j: a per-shop limit low enough for the load to reach it, and a merchant that holds each answer a little. */
export const PAIRS_PER_SHOP_CONCURRENCY = 4;
export const PAIRS_HOLD_MS = 25;
/** merchant-callbacks' own default (MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY). */
export const DEFAULT_PER_SHOP_CONCURRENCY = 16;
