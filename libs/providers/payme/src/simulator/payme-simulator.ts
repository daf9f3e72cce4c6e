import { paymeAuthorization } from '../payme-auth';

/** The terms of one simulated payment: the cashbox and its key, the order, its amount in tiyin. */
export interface PaymeTerms {
  merchantId: string;
  merchantKey: string;
  orderId: string;
  /** In tiyin. */
  amount: number;
  /** Payme's id of a performed transaction to refund (the refund scenario). */
  transactionId?: string;
}

/** One JSON-RPC request the simulator sent and what our callbacks-ingest answered (JSON, or null when not JSON). */
export interface PaymeStep {
  method: string;
  /** The request as sent: the JSON-RPC object, or the raw text when the scenario sends one that is not JSON. */
  request: Record<string, unknown> | string;
  httpStatus: number;
  answer: Record<string, unknown> | null;
}
/** Posts one body to the cashbox's URL with `Authorization` as given, and reads the answer. */
export type PaymeSend = (method: string, body: string, authorization: string) => Promise<PaymeStep>;

/**
 * CancelTransaction's `reason`, as Payme's Merchant API lists them: 3 a transaction error (what
 * the simulator sends when the payer cancels before paying), 5 a refund (after perform).
 */
export const PaymeCancelReasons = { payerCancelled: 3, refund: 5 } as const;

/**
 * What Payme does, as scenarios the sandbox plays on request, each named after what it provokes
 * (docs/providers.md's table). Payme stops at the first error answer, as its checkout does. Some
 * need the order in a state the caller arranges (order_not_payable on a paid or cancelled order).
 */
export const PAYME_SCENARIOS = {
  pay: 'CheckPerformTransaction, CreateTransaction, PerformTransaction: the order is paid (state 2)',
  pay_repeated: 'Check, CreateTransaction twice, PerformTransaction twice, same id: the same answers, one payment',
  cancel: 'CheckPerformTransaction, CreateTransaction, CancelTransaction (reason 3): state -1, the order stays payable',
  refund:
    'CancelTransaction (reason 5) of transactionId (arrange: `pay` it, the order completed): state -2, the order is refunded',
  wrong_key: 'CheckPerformTransaction with another key: -32504',
  wrong_amount: 'CheckPerformTransaction for 1 tiyin more than the order: -31001',
  unknown_order: 'CheckPerformTransaction for an order id that does not exist: -31050',
  order_busy: 'CreateTransaction, then CreateTransaction with another id: -31051',
  order_not_payable: 'CheckPerformTransaction (arrange: the order is paid or cancelled): -31052',
  unknown_transaction: 'PerformTransaction for a transaction never created: -31003',
  perform_cancelled: 'CreateTransaction, CancelTransaction, then PerformTransaction: -31008',
  unknown_method: 'a method Payme does not have: -32601',
  malformed: 'CheckPerformTransaction with the amount as a string: -32600',
  not_json: 'a body that is not JSON: -32700',
} as const;
export type PaymeScenarioName = keyof typeof PAYME_SCENARIOS;

const failed = (s: PaymeStep): boolean => !s.answer || 'error' in s.answer;

/** The simulator's JSON-RPC client of one cashbox: each call numbered, Payme's `time` in ms. */
export class PaymeClient {
  private rpcId = 0;
  constructor(
    private readonly t: PaymeTerms,
    private readonly send: PaymeSend,
    private readonly now: () => number,
  ) {}

  call(method: string, params: unknown, key = this.t.merchantKey): Promise<PaymeStep> {
    const body = { jsonrpc: '2.0', id: ++this.rpcId, method, params };
    return this.send(method, JSON.stringify(body), paymeAuthorization(key));
  }

  check(over: { amount?: number; orderId?: string } = {}, key?: string): Promise<PaymeStep> {
    const account = { order_id: over.orderId ?? this.t.orderId };
    return this.call('CheckPerformTransaction', { amount: over.amount ?? this.t.amount, account }, key);
  }

  create(id: string): Promise<PaymeStep> {
    const account = { order_id: this.t.orderId };
    return this.call('CreateTransaction', { id, time: this.now(), amount: this.t.amount, account });
  }

  perform(id: string): Promise<PaymeStep> {
    return this.call('PerformTransaction', { id });
  }

  cancel(id: string, reason: number): Promise<PaymeStep> {
    return this.call('CancelTransaction', { id, reason });
  }

  /** Runs the calls in order, stopping after the first that is not a result. */
  async until(calls: (() => Promise<PaymeStep>)[]): Promise<PaymeStep[]> {
    const steps: PaymeStep[] = [];
    for (const c of calls) {
      const step = await c();
      steps.push(step);
      if (failed(step)) break;
    }
    return steps;
  }
}

/** Plays one scenario through `send`; `nextTransactionId` gives Payme's transaction ids. */
export function playPaymeScenario(
  name: PaymeScenarioName,
  t: PaymeTerms,
  send: PaymeSend,
  nextTransactionId: () => string,
  now: () => number,
): Promise<PaymeStep[]> {
  const c = new PaymeClient(t, send, now);
  const id = nextTransactionId();
  const pay = [() => c.check(), () => c.create(id), () => c.perform(id)];
  switch (name) {
    case 'pay':
      return c.until(pay);
    case 'pay_repeated':
      return c.until([
        () => c.check(),
        () => c.create(id),
        () => c.create(id),
        () => c.perform(id),
        () => c.perform(id),
      ]);
    case 'cancel':
      return c.until([() => c.check(), () => c.create(id), () => c.cancel(id, PaymeCancelReasons.payerCancelled)]);
    case 'refund':
      return c.until([() => c.cancel(t.transactionId ?? id, PaymeCancelReasons.refund)]);
    case 'wrong_key':
      return c.until([() => c.check({}, `${t.merchantKey}-not`)]);
    case 'wrong_amount':
      return c.until([() => c.check({ amount: t.amount + 1 })]);
    case 'unknown_order':
      return c.until([() => c.check({ orderId: '00000000-0000-4000-8000-000000000000' })]);
    case 'order_busy': {
      const other = nextTransactionId();
      return c.until([() => c.create(id), () => c.create(other)]);
    }
    case 'order_not_payable':
      return c.until([() => c.check()]);
    case 'unknown_transaction':
      return c.until([() => c.perform(id)]);
    case 'perform_cancelled':
      return c.until([() => c.create(id), () => c.cancel(id, PaymeCancelReasons.payerCancelled), () => c.perform(id)]);
    case 'unknown_method':
      return c.until([() => c.call('PayNow', { id })]);
    case 'malformed':
      return c.until([
        () => c.call('CheckPerformTransaction', { amount: String(t.amount), account: { order_id: t.orderId } }),
      ]);
    case 'not_json':
      return Promise.all([
        send('CheckPerformTransaction', '{"jsonrpc": "2.0", "method": ', paymeAuthorization(t.merchantKey)),
      ]);
    default: {
      const never: never = name;
      throw new Error(`unknown Payme scenario ${String(never)}`);
    }
  }
}
