import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CallbackSender } from './callback-sender';
import { SANDBOX_CONFIG, SandboxConfig } from './config';
import { PlannedCallback, ScenarioName, scenarioOf } from '@payments/providers/sandbox';

export type PaymentKind = 'payment' | 'payout' | 'p2p';

export interface StartPayment {
  kind: PaymentKind;
  reference: string;
  /** The caller's id of the attempt; with it, a resend is the same payment. */
  paymentId?: string;
  amount: string;
  currency: string;
  tokenStandard?: string;
  /** Waits for the payer's approval in the bank app before the scenario's callbacks. */
  app?: boolean;
}

export interface PaymentAnswer {
  paymentId: string;
  providerPaymentId: string;
  status: 'pending';
  scenario: ScenarioName;
}

export interface SentCallback {
  eventId: string;
  status: PlannedCallback['status'];
  amount: string;
  currency: string;
  /** What callbacks-ingest answered; absent while it is being sent, null when it could not be reached. */
  responseStatus?: number | null;
  responseBody?: string;
}

/** What the sandbox knows of one payment: for tests and for people poking at it. */
export interface PaymentRecord extends StartPayment {
  paymentId: string;
  providerPaymentId: string;
  scenario: ScenarioName;
  /** How many times the payment was asked for: resends included. */
  requests: number;
  callbacks: SentCallback[];
  /** An app payment: what the payer chose in the bank app, once they did. */
  decision?: 'approved' | 'declined';
}

export type StartResult =
  { kind: 'answer'; answer: PaymentAnswer } | { kind: 'conflict'; detail: string } | { kind: 'closing' };

class Closing extends Error {}

/** Kept in memory; the oldest are forgotten beyond this many. */
const MAX_PAYMENTS = 10_000;

/**
 * The sandbox's payments, idempotent by (kind, reference, paymentId): a resend of the same request
 * gets the first answer (waiting for it if it is still coming) and starts no second set of
 * callbacks; the same ids with other terms are a conflict. State lives in memory only.
 */
@Injectable()
export class SandboxPayments implements OnModuleDestroy {
  private readonly logger = new Logger('SandboxPayments');
  private readonly payments = new Map<string, { record: PaymentRecord; answer: Promise<StartResult> }>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closing = false;

  constructor(
    private readonly sender: CallbackSender,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  async start(request: StartPayment): Promise<StartResult> {
    if (this.closing) return { kind: 'closing' };
    const key = request.paymentId ? `${request.kind}|${request.reference}|${request.paymentId}` : undefined;
    const known = key ? this.payments.get(key) : undefined;
    if (known) {
      const r = known.record;
      if (
        r.amount !== request.amount ||
        r.currency !== request.currency ||
        (r.tokenStandard ?? null) !== (request.tokenStandard ?? null)
      ) {
        return {
          kind: 'conflict',
          detail: `payment ${r.paymentId} of ${r.reference} was started with ${r.amount} ${r.currency}${r.tokenStandard ? ` ${r.tokenStandard}` : ''}`,
        };
      }
      r.requests += 1;
      return known.answer;
    }

    const scenario = scenarioOf(request.amount);
    const record: PaymentRecord = {
      ...request,
      paymentId: request.paymentId ?? `sbx_pay_${randomUUID()}`,
      providerPaymentId: `sbx_${randomUUID()}`,
      scenario: scenario.name,
      requests: 1,
      callbacks: [],
    };
    const answer = (async (): Promise<StartResult> => {
      try {
        if (scenario.slow) await this.delay(this.config.slowMs);
      } catch (err) {
        if (err instanceof Closing) return { kind: 'closing' };
        throw err;
      }
      // An app payment waits for the payer in the bank app (decide); the rest play at once.
      if (!request.app) void this.playCallbacks(record, scenario.callbacks(request));
      return {
        kind: 'answer',
        answer: {
          paymentId: record.paymentId,
          providerPaymentId: record.providerPaymentId,
          status: 'pending',
          scenario: scenario.name,
        },
      };
    })();
    this.remember(key ?? record.providerPaymentId, { record, answer });
    this.logger.debug(
      `payment ${record.paymentId} of ${record.reference}: ${record.amount} ${record.currency}, scenario ${scenario.name}`,
    );
    return answer;
  }

  /**
   * The payer's answer in the bank app: approving plays the amount's scenario (so the magic cents
   * work as for a card), declining sends one failed callback. Only the first answer counts.
   */
  decide(reference: string, paymentId: string, approve: boolean): PaymentRecord | undefined {
    const record = this.find('payment', reference, paymentId);
    if (!record?.app || record.decision) return record;
    record.decision = approve ? 'approved' : 'declined';
    const terms = {
      amount: record.amount,
      currency: record.currency,
      ...(record.tokenStandard ? { tokenStandard: record.tokenStandard } : {}),
    };
    void this.playCallbacks(
      record,
      approve
        ? scenarioOf(record.amount).callbacks(terms)
        : [{ status: 'failed', reason: 'declined in the bank app', ...terms }],
    );
    return record;
  }

  find(kind: PaymentKind, reference: string, paymentId: string): PaymentRecord | undefined {
    return this.payments.get(`${kind}|${reference}|${paymentId}`)?.record;
  }

  /** Every payment of a kind the sandbox still remembers (tests check what was, or was not, sent). */
  ofKind(kind: PaymentKind): PaymentRecord[] {
    return [...this.payments.values()].map((p) => p.record).filter((r) => r.kind === kind);
  }

  onModuleDestroy(): void {
    // Held answers and pending callbacks end now, so the HTTP server can close at once.
    this.closing = true;
    for (const [timer, cancel] of this.timers) {
      clearTimeout(timer);
      cancel();
    }
    this.timers.clear();
  }

  /** Sends the scenario's callbacks one after the other, each after the callback delay. */
  private async playCallbacks(record: PaymentRecord, plan: PlannedCallback[]): Promise<void> {
    for (const planned of plan) {
      try {
        await this.delay(this.config.callbackDelayMs);
      } catch {
        return; // shutting down
      }
      const eventId = planned.repeatOf !== undefined ? record.callbacks[planned.repeatOf].eventId : randomUUID();
      const sent: SentCallback = {
        eventId,
        status: planned.status,
        amount: planned.amount,
        currency: planned.currency,
      };
      record.callbacks.push(sent);
      try {
        const response = await this.sender.send({
          eventId,
          kind: record.kind,
          reference: record.reference,
          paymentId: record.paymentId,
          status: planned.status,
          amount: planned.amount,
          currency: planned.currency,
          ...(planned.tokenStandard ? { tokenStandard: planned.tokenStandard } : {}),
          ...(planned.reason ? { reason: planned.reason } : {}),
        });
        sent.responseStatus = response.status;
        sent.responseBody = response.body.slice(0, 500);
      } catch (err) {
        sent.responseStatus = null;
        this.logger.warn(`callback ${eventId} for ${record.reference} not delivered: ${(err as Error).message}`);
      }
    }
  }

  private delay(ms: number): Promise<void> {
    if (this.closing) return Promise.reject(new Closing());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.set(timer, () => reject(new Closing()));
    });
  }

  private remember(key: string, entry: { record: PaymentRecord; answer: Promise<StartResult> }): void {
    this.payments.set(key, entry);
    if (this.payments.size > MAX_PAYMENTS) this.payments.delete(this.payments.keys().next().value as string);
  }
}
