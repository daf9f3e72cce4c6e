import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric family of the process, served at `/metrics` in Prometheus text format
 * (docs/operations.md says what each one means). One registry per process: in production one
 * process is one service; a test that runs several services in one process sees their families
 * side by side, told apart by their labels.
 */
export const metricsRegistry = new Registry();

let processMetricsStarted = false;

/** CPU, memory, event-loop lag, GC and handles of this process (prom-client's default set), once. */
export function collectProcessMetrics(): void {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  collectDefaultMetrics({ register: metricsRegistry });
  // Gauges named like counters (promtool's linter says so); each is the sum of its labelled twin
  // (nodejs_active_handles{type} etc.), which stays.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    metricsRegistry.removeSingleMetric(name);
}

/** A value read when Prometheus scrapes (a count in the database), under the labels it belongs to. */
export interface Sample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}
export type SampleSource<L extends string> = () => Promise<Sample<L>[]>;

/** How long one source may take at scrape time before its samples are left out of that scrape. */
const SOURCE_TIMEOUT_MS = 2000;

/**
 * A gauge whose samples are read at scrape time from the sources the running apps added (each
 * service's own table, say). A source that fails or is slow leaves its samples out of that one
 * scrape instead of failing the whole answer: the gap shows in Prometheus as missing data.
 */
export class ScrapedGauge<L extends string> {
  private readonly sources = new Set<SampleSource<L>>();
  readonly gauge: Gauge<L>;

  constructor(config: { name: string; help: string; labelNames: readonly L[] }) {
    const sources = this.sources;
    this.gauge = new Gauge<L>({
      ...config,
      registers: [metricsRegistry],
      async collect() {
        this.reset();
        const results = await Promise.allSettled([...sources].map((source) => withTimeout(source())));
        for (const result of results) {
          if (result.status !== 'fulfilled') continue;
          for (const s of result.value) this.set(s.labels, s.value);
        }
      },
    });
  }

  /** Adds a source; the answer removes it again (when its app closes). */
  add(source: SampleSource<L>): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('metrics source timed out')), SOURCE_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Labels are bounded: a route template, never a path with ids in it. */
const httpRequestDuration = new Histogram<'method' | 'route' | 'status_code'>({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/**
 * The families of this system (prefix `payments_`), one per question an operator asks. Labels are
 * bounded: an entity, a status, a catalogue code, a topic, a result — never an id, a key or an
 * amount. The gauges read the database when scraped; the Kafka families (kafka_exporter's names)
 * and the dead-letter depth come from the one elected collector (libs/messaging, kafka-metrics).
 */
export const PaymentsMetrics = {
  outboxMessages: new ScrapedGauge<'service'>({
    name: 'payments_outbox_messages',
    help: 'Outbox rows committed and not yet published to Kafka, per service.',
    labelNames: ['service'],
  }),
  outboxOldestAge: new ScrapedGauge<'service'>({
    name: 'payments_outbox_oldest_age_seconds',
    help: 'Age of the oldest outbox row not yet published, per service (0 when none waits).',
    labelNames: ['service'],
  }),
  deadLetterMessages: new Gauge<'topic'>({
    name: 'payments_dead_letter_messages',
    help: 'Messages in a dead-letter topic (<topic>.dlq), retained and not yet redriven or discarded.',
    labelNames: ['topic'],
    registers: [metricsRegistry],
  }),
  merchantCallbacksPending: new ScrapedGauge<'state'>({
    name: 'payments_merchant_callbacks_pending',
    help: 'Merchant callbacks not yet delivered: state="waiting" (no attempt yet) or "retrying" (failed at least once).',
    labelNames: ['state'],
  }),
  merchantCallbacksOldestAge: new ScrapedGauge<never>({
    name: 'payments_merchant_callbacks_oldest_age_seconds',
    help: 'Age of the oldest merchant callback not yet delivered (0 when none waits).',
    labelNames: [],
  }),
  merchantCallbackAttempts: new Counter<'result'>({
    name: 'payments_merchant_callback_attempts_total',
    help: 'Merchant callback HTTP attempts, by result: delivered (2xx), http_error (another status), network_error (no answer, timeout, refused).',
    labelNames: ['result'],
    registers: [metricsRegistry],
  }),
  statusTransitions: new Counter<'entity' | 'status' | 'status_code'>({
    name: 'payments_status_transitions_total',
    help: 'Status changes published, by entity (order, payout, p2p), new status and status code ("none" without one).',
    labelNames: ['entity', 'status', 'status_code'],
    registers: [metricsRegistry],
  }),
  providerCallbacks: new Counter<'provider' | 'result'>({
    name: 'payments_provider_callbacks_total',
    help: 'Provider callbacks by result: accepted, duplicate, bad_signature, invalid, unknown_provider, unknown_reference.',
    labelNames: ['provider', 'result'],
    registers: [metricsRegistry],
  }),
  requestReplyDuration: new Histogram<'topic'>({
    name: 'payments_request_reply_duration_seconds',
    help: 'Round trip of a request over Kafka until its reply arrived, by request topic (timeouts are not observed here).',
    labelNames: ['topic'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  }),
  providerSends: new Counter<'provider' | 'kind' | 'outcome'>({
    name: 'payments_provider_sends_total',
    help: 'Requests the dispatchers sent to a provider, by provider code, kind (payment, payout, p2p) and outcome: accepted; refused (the provider will not take it, a 4xx); unavailable (certainly not taken: down, 5xx, 429; sent again); timed_out (no answer in time, never sent again); error (the adapter failed). Success rate: accepted over all.',
    labelNames: ['provider', 'kind', 'outcome'],
    registers: [metricsRegistry],
  }),
  paymentFailovers: new Counter<'from' | 'to' | 'reason'>({
    name: 'payments_payment_failovers_total',
    help: "Card payment attempts a provider refused before accepting them that went on to the next provider of the shop's route (decision 322), by provider codes and why: unavailable (after the last send) or refused (a code that allows retry).",
    labelNames: ['from', 'to', 'reason'],
    registers: [metricsRegistry],
  }),
  providerSendDuration: new Histogram<'provider' | 'kind'>({
    name: 'payments_provider_send_duration_seconds',
    help: "How long one request to a provider took until its answer or the send's timeout, by provider code and kind.",
    labelNames: ['provider', 'kind'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metricsRegistry],
  }),
  requestReplyTimeouts: new Counter<'topic'>({
    name: 'payments_request_reply_timeouts_total',
    help: 'Requests over Kafka that got no reply in time, by request topic.',
    labelNames: ['topic'],
    registers: [metricsRegistry],
  }),
  componentReady: new ScrapedGauge<'component'>({
    name: 'payments_component_ready',
    help: 'Whether each part of the service is ready (1) or not (0): database, kafka-consumer, kafka-producer:<name>; /health/ready says why.',
    labelNames: ['component'],
  }),
  live: new ScrapedGauge<never>({
    name: 'payments_live',
    help: 'Whether the process can still recover by itself (1); 0: /health/live fails and an orchestrator restarts it.',
    labelNames: [],
  }),
  commandsRefused: new Counter<'topic' | 'reason' | 'outcome'>({
    name: 'payments_commands_refused_total',
    help: 'Commands refused by their consumer because they did not come through their audience (decision 263), by command topic, reason (wrong_audience: a type not allowed on the topic; wrong_reply_topic: a reply topic of another audience; no_operator: an operator-path command without a valid operator, decision 301) and outcome (answered with a refusal, or dropped).',
    labelNames: ['topic', 'reason', 'outcome'],
    registers: [metricsRegistry],
  }),
  repliesDropped: new Counter<'topic' | 'reason'>({
    name: 'payments_replies_dropped_total',
    help: 'Replies to requests over Kafka given up, by reply topic ("other": not a reply topic of this service) and reason: unknown_topic, expired (the requester had stopped waiting), send_failed, timeout.',
    labelNames: ['topic', 'reason'],
    registers: [metricsRegistry],
  }),
  reconciliationBreaches: new ScrapedGauge<'invariant'>({
    name: 'payments_reconciliation_breaches',
    help: 'Open breaches found by the last reconciliation run, per invariant (0 when it holds); see GET /ops/v1/reconciliation/breaches.',
    labelNames: ['invariant'],
  }),
  reconciliationLastSuccess: new ScrapedGauge<never>({
    name: 'payments_reconciliation_last_success_timestamp_seconds',
    help: 'When the last reconciliation run that read every table finished (Unix seconds; 0: none yet). A run that cannot read records nothing, so this stops advancing.',
    labelNames: [],
  }),
  reconciliationFailedRuns: new Counter<never>({
    name: 'payments_reconciliation_failed_runs_total',
    help: 'Reconciliation runs of this gateway that failed (a table it cannot read, the database away); the error is in its log.',
    registers: [metricsRegistry],
  }),
  ledgerBooksViolations: new ScrapedGauge<'check'>({
    name: 'payments_ledger_books_violations',
    help: "Violations of the books' invariants the ledger's last check found, per check (0 when it holds); the ledger logs each at error level.",
    labelNames: ['check'],
  }),
  ledgerBooksLastCheck: new ScrapedGauge<never>({
    name: 'payments_ledger_books_last_check_timestamp_seconds',
    help: 'When the ledger last finished a check of its books (Unix seconds; its start until one finished). A check that cannot run records nothing, so this stops advancing.',
    labelNames: [],
  }),
  ledgerAwaitingRate: new ScrapedGauge<never>({
    name: 'payments_ledger_awaiting_rate_credits',
    help: 'Credits held in suspense until their currency pair has a rate (converted by the ledger once it has one).',
    labelNames: [],
  }),
  ledgerEventsReadThrough: new ScrapedGauge<'topic'>({
    name: 'payments_ledger_events_read_through_timestamp_seconds',
    help: "The latest moment through which the ledger's events consumer group has read each topic, as the orphan sweep last found it (decision 357; Unix seconds; absent until it could tell). A hold is swept as an orphan only once this moment is past its bound.",
    labelNames: ['topic'],
  }),
  idempotencyReplays: new Counter<never>({
    name: 'payments_idempotency_replays_total',
    help: 'Merchant requests answered with the stored answer of an earlier request with the same Idempotency-Key.',
    registers: [metricsRegistry],
  }),
} as const;

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/**
 * `/metrics` and the HTTP duration histogram on an app. The route template (`/order/:orderId`)
 * is the label, never the URL; a request that matched no route is `route="unmatched"`.
 */
export function installMetrics(app: NestFastifyApplication): void {
  collectProcessMetrics();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', (request, reply, done) => {
    httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  fastify.get('/metrics', async (_request, reply) => {
    const body = await metricsRegistry.metrics();
    void reply.header('content-type', METRICS_CONTENT_TYPE).header('cache-control', 'no-store');
    return body;
  });
}
