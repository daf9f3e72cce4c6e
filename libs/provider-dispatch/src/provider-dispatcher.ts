import { LoggerService } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isInfrastructureFault, QueueWorker, workerInstanceId } from '@payments/messaging';
import { ClaimedDispatch, DispatchQueue, DispatchStatus, SendDetails } from './dispatch-queue';
import { PaymentsMetrics } from '@payments/platform';
import type { ProviderAnswer, ProviderRequest } from './provider-answer';
import { RetryPolicy, retryDelayMs } from './retry-policy';

export interface DispatcherOptions {
  /** Start the loop with the app; tests turn it off and call `dispatchDue()` themselves. */
  autoStart: boolean;
  /** Look for due rows at least this often, in case a NOTIFY was missed. */
  pollIntervalMs: number;
  /** Rows sent at once by this instance; a slot is claimed again as soon as its send is recorded. */
  batchSize: number;
  /** Names this instance in `claimed_by`, for operators. */
  instanceId: string;
}

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, 'instanceId'> = {
  autoStart: true,
  pollIntervalMs: 500,
  batchSize: 20,
};

/**
 * A provider's answer as the dispatcher hands it to the service: with how long the send took, so
 * that the statement recording the outcome keeps both on the dispatch row (decision 329).
 */
export type MeasuredAnswer = ProviderAnswer & { sendMs: number };

/** What the service decided, under its aggregate's lock, about one send. */
export type DispatchDecision =
  /**
   * The row is done; the service has recorded what it means for the aggregate. `finished`: the
   * service also ended the row, in its own statement (`DispatchQueue.finishCte` with
   * `finishDetails(answer)`), so the dispatcher writes nothing more.
   */
  | {
      kind: 'finish';
      status: Exclude<DispatchStatus, 'pending'>;
      summary: string;
      finished?: boolean;
      /** Runs once the transaction committed (metrics of what it did), never when it rolled back. */
      afterCommit?: () => void;
    }
  /** Send the same request again after the policy's backoff. */
  | { kind: 'retry' }
  /** Nothing reached the provider and the aggregate no longer waits for it. */
  | { kind: 'drop'; reason: string };

/** The part of dispatching that differs between orders, payouts and P2P. */
export interface DispatchHandler {
  /** Whether the aggregate (status at claim time) still waits for this send. */
  shouldSend(row: ClaimedDispatch): boolean;
  send(row: ClaimedDispatch, opts: { timeoutMs: number }): Promise<ProviderAnswer>;
  /**
   * Records the outcome of a send in the dispatcher's transaction, with the claim held: locks
   * and re-reads the aggregate (unless `lockClaimed` did, see there), moves it (and writes its
   * outbox rows) as its rules say.
   */
  record(
    m: EntityManager,
    row: ClaimedDispatch,
    answer: MeasuredAnswer,
    ctx: { sends: number; lastSend: boolean; now: Date; locked?: unknown },
  ): Promise<DispatchDecision>;
  /**
   * Optional: locks the dispatch row, if still this claim's, together with its aggregate in one
   * statement (one round trip less per send); `locked` (the aggregate as read) reaches `record`
   * as `ctx.locked`. Null when the claim was lost. Without it the queue locks the row alone.
   */
  lockClaimed?(
    m: EntityManager,
    row: ClaimedDispatch,
    claimToken: string,
  ): Promise<{ sends: number; locked: unknown } | null>;
}

export interface ProviderDispatcherDeps {
  name: string;
  /** What it sends, for the provider metrics' `kind` label. */
  kind: ProviderRequest['kind'];
  dataSource: DataSource;
  databaseUrl: string;
  /** @deprecated unused: the queue names its own tables and wake-up channel. Kept so callers compile unchanged. */
  schema?: string;
  queue: DispatchQueue;
  handler: DispatchHandler;
  clock: { now(): Date };
  policy: RetryPolicy;
  providerTimeoutMs: number;
  options: DispatcherOptions;
  logger: LoggerService;
}

/**
 * Sends queued requests to the provider, asynchronously from the merchant's request, as the
 * worker of the service's dispatch queue (libs/messaging QueueWorker). Several instances may run
 * it at once: rows are claimed with a lease, the provider is called outside any transaction with
 * a per-call timeout, and the outcome is recorded in one transaction (dispatch row, aggregate,
 * outbox) by the service's handler. Woken when this process commits a row; polls as a fallback
 * and sleeps until retries fall due.
 */
export class ProviderDispatcher {
  private readonly worker: QueueWorker<ClaimedDispatch>;

  constructor(private readonly d: ProviderDispatcherDeps) {
    this.worker = new QueueWorker<ClaimedDispatch>({
      name: d.name,
      databaseUrl: d.databaseUrl,
      queue: d.queue.work,
      concurrency: d.options.batchSize,
      workTimeoutMs: d.providerTimeoutMs,
      instanceId: d.options.instanceId,
      clock: d.clock,
      claim: (r) => d.queue.claimDue(r.now, r.leaseUntil, r.limit, r.claimToken, r.claimedBy),
      idOf: (row) => row.dispatchId,
      work: (row, claimToken) => this.dispatchOne(row, claimToken),
      pollIntervalMs: d.options.pollIntervalMs,
      minIdleMs: 10,
      logger: d.logger,
    });
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /** Stops claiming; the provider calls in flight end within their timeout and are recorded. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Claims the rows due now, sends them and records the outcomes; returns how many it claimed. */
  dispatchDue(): Promise<number> {
    return this.worker.workDue();
  }

  private async dispatchOne(row: ClaimedDispatch, claimToken: string): Promise<void> {
    try {
      if (!this.d.handler.shouldSend(row)) {
        // Nothing else is written with a skip: one statement, only while the claim is ours.
        await this.d.queue.skipIfClaimed(
          this.d.dataSource.manager,
          row.dispatchId,
          claimToken,
          this.d.clock.now(),
          `${row.referenceId} was ${row.aggregateStatus} before it was sent`,
        );
        // Routine: the provider's callback overtook the send, or the order was cancelled meanwhile.
        this.d.logger.debug?.(`${row.dispatchId} of ${row.referenceId} not sent: it is ${row.aggregateStatus}`);
        return;
      }
      const answer = await this.sendMeasured(row);
      await this.recordUntilLeaseEnds(row, claimToken, answer);
    } catch (err) {
      // The row stays claimed; it comes back when its lease runs out.
      this.d.logger.error(`${row.dispatchId} of ${row.referenceId}: ${(err as Error).message}`);
    }
  }

  /** The handler's send, counted and timed per provider, kind and outcome (each provider's success rate and latency). */
  private async sendMeasured(row: ClaimedDispatch): Promise<MeasuredAnswer> {
    const labels = { provider: row.provider, kind: this.d.kind };
    const started = process.hrtime.bigint();
    const measure = (outcome: ProviderAnswer['kind'] | 'error'): number => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      PaymentsMetrics.providerSends.inc({ ...labels, outcome });
      PaymentsMetrics.providerSendDuration.observe(labels, seconds);
      return seconds;
    };
    let answer: ProviderAnswer;
    try {
      answer = await this.d.handler.send(row, { timeoutMs: this.d.providerTimeoutMs });
    } catch (err) {
      measure('error');
      throw err;
    }
    return { ...answer, sendMs: measure(answer.kind) * 1000 };
  }

  /**
   * Records the provider's answer, retrying while the database is unreachable (a restart, no free
   * connection slot) for about as long as the claim's lease: the answer is known, so waiting out
   * the lease and sending again would only delay the aggregate by a provider timeout or more.
   * Anything else, or an outage that outlasts the lease, leaves the row to come back then.
   */
  private async recordUntilLeaseEnds(row: ClaimedDispatch, claimToken: string, answer: MeasuredAnswer): Promise<void> {
    const giveUpAt = Date.now() + this.d.providerTimeoutMs;
    for (let pauseMs = 50; ; pauseMs = Math.min(pauseMs * 2, 1000)) {
      try {
        return await this.record(row, claimToken, answer);
      } catch (err) {
        if (!isInfrastructureFault(err) || Date.now() + pauseMs > giveUpAt) throw err;
        this.d.logger.warn(
          `${row.dispatchId} of ${row.referenceId}: recording the answer failed (${(err as Error).message}); again in ${pauseMs} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  }

  /** One transaction: the dispatch row (only if still ours), then the service's own record. */
  private async record(row: ClaimedDispatch, claimToken: string, answer: MeasuredAnswer): Promise<void> {
    const now = this.d.clock.now();
    const error = answer.kind === 'accepted' ? undefined : answer.reason;
    let afterCommit: (() => void) | undefined;
    const summary = await this.d.dataSource.transaction(async (m) => {
      afterCommit = undefined;
      const claim = this.d.handler.lockClaimed
        ? await this.d.handler.lockClaimed(m, row, claimToken)
        : await this.d.queue.lockClaimed(m, row.dispatchId, claimToken);
      if (!claim) return 'claim lost (lease ran out); left to the dispatcher that holds it now';
      const decision = await this.d.handler.record(m, row, answer, {
        sends: claim.sends,
        lastSend: claim.sends >= this.d.policy.maxSends,
        now,
        ...('locked' in claim ? { locked: claim.locked } : {}),
      });
      switch (decision.kind) {
        case 'retry': {
          const delayMs = retryDelayMs(claim.sends, this.d.policy);
          await this.d.queue.reschedule(
            m,
            row.dispatchId,
            new Date(now.getTime() + delayMs),
            error ?? '',
            now,
            sendRecord(answer),
          );
          return `${answer.kind} (${error}); send ${claim.sends}/${this.d.policy.maxSends}, next in ${delayMs} ms`;
        }
        case 'drop':
          await this.d.queue.finish(m, row.dispatchId, 'skipped', now, { error: decision.reason });
          return `dropped: ${decision.reason}`;
        case 'finish':
          if (!decision.finished)
            await this.d.queue.finish(m, row.dispatchId, decision.status, now, finishDetails(answer));
          afterCommit = decision.afterCommit;
          return decision.summary;
        default: {
          const never: never = decision;
          throw new Error(`unexpected decision ${JSON.stringify(never)}`);
        }
      }
    });
    afterCommit?.();
    this.d.logger.log(`${row.dispatchId} of ${row.referenceId}: ${summary}`);
  }
}

/**
 * What a finished row keeps of the provider's answer: its payment id when accepted, else the
 * error; and the send itself (answer and duration, decision 329) when the answer was measured.
 */
export function finishDetails(answer: ProviderAnswer | MeasuredAnswer): SendDetails {
  const send = sendRecord(answer);
  const sent = send ? { send } : {};
  if (answer.kind === 'accepted')
    return answer.providerPaymentId ? { providerPaymentId: answer.providerPaymentId, ...sent } : sent;
  return answer.reason ? { error: answer.reason, ...sent } : sent;
}

function sendRecord(answer: ProviderAnswer | MeasuredAnswer): SendDetails['send'] {
  return 'sendMs' in answer ? { answer: answer.kind, ms: answer.sendMs } : undefined;
}

export function defaultInstanceId(): string {
  return workerInstanceId();
}
