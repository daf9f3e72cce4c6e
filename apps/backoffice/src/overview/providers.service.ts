import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { newPool } from '@payments/platform';
import type { RouteStep } from '@payments/contracts';
import type { Pool } from 'pg';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';

/** The windows the Providers panel shows, newest first (decision 330). */
export const PROVIDER_WINDOWS = { '1h': '1 hour', '24h': '24 hours' } as const;
export type ProviderWindow = keyof typeof PROVIDER_WINDOWS;

export type SendKind = 'payment' | 'payout' | 'p2p';

/** One provider's sends of one kind in one window, from the dispatch rows (decision 329). */
export interface ProviderSends {
  provider: string;
  kind: SendKind;
  window: ProviderWindow;
  /** Answers recorded: accepted + refused + unavailable + timedOut. */
  sends: number;
  accepted: number;
  refused: number;
  unavailable: number;
  timedOut: number;
  /** accepted / sends, 0…1 with four decimals; null without sends. */
  successRate: number | null;
  /** Send latency in milliseconds (nearest rank); null without sends. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** The last send in the window that was not accepted; null when there was none. */
  lastErrorAt: string | null;
}

/** Payments a provider took on its own page or app and told us about (Click, Payme: they call us). */
export interface ProviderCallsIn {
  provider: string;
  window: ProviderWindow;
  /** Attempts in the window, by the provider's status of them. */
  attempts: number;
  success: number;
  failed: number;
  pending: number;
  /** The last attempt in the window that failed; null when none did. */
  lastFailedAt: string | null;
}

/** A shop's route for one method (decision 320), as orders keep it: shown read-only (decision 331). */
export interface ShopRoute {
  shopId: string;
  method: string;
  providers: RouteStep[];
  updatedAt: string;
}

export interface ProvidersReport {
  at: string;
  windows: ProviderWindow[];
  sends: ProviderSends[];
  callsIn: ProviderCallsIn[];
  /** Kinds whose service's view could not be read (not deployed or migrated yet): left out. */
  unavailable: (SendKind | 'attempts')[];
  /** Every shop's routes, by shop and method (the first ROUTES_SHOWN). */
  routes: ShopRoute[];
  /** True when orders' routes could not be read. */
  routesUnavailable: boolean;
}

/** Routes are a handful per shop; the panel lists at most this many. */
export const ROUTES_SHOWN = 500;

interface SendsRow {
  provider: string;
  window: ProviderWindow;
  sends: number;
  accepted: number;
  refused: number;
  unavailable: number;
  timed_out: number;
  p50: number | null;
  p99: number | null;
  last_error_at: Date | null;
}

interface CallsInRow {
  provider: string;
  window: ProviderWindow;
  attempts: number;
  success: number;
  failed: number;
  pending: number;
  last_failed_at: Date | null;
}

/** The windows as a VALUES list: `w(name, since)`. */
const WINDOWS_SQL = `(VALUES ${Object.entries(PROVIDER_WINDOWS)
  .map(([name, interval]) => `('${name}', now() - interval '${interval}')`)
  .join(', ')}) AS w(name, since)`;

/**
 * How each provider is doing (issue 30, decision 330), read on demand from the operator views
 * orders, payouts and P2P own and grant (decision 300) through the reconciliation's read-only
 * connection: every recorded send's answer and duration on its dispatch row (decision 329),
 * counted per provider and kind over the last hour and day; and the payments of providers that
 * call us, from orders' attempts that no dispatch row sent.
 */
@Injectable()
export class ProvidersService implements OnApplicationShutdown {
  private readonly logger = new Logger('Providers');
  private readonly reads: Pool;
  private readonly warned = new Set<string>();

  constructor(@Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig) {
    this.reads = newPool({ connectionString: config.reconciliation.databaseUrl, max: 2 }, (line) =>
      this.logger.warn(line),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reads.end().catch(() => undefined);
  }

  async report(): Promise<ProvidersReport> {
    const s = this.config.reconciliation.schemas;
    const kinds: [SendKind, string][] = [
      ['payment', s.orders],
      ['payout', s.payouts],
      ['p2p', s.p2p],
    ];
    const unavailable: ProvidersReport['unavailable'] = [];
    const [sends, callsIn, routes] = await Promise.all([
      Promise.all(
        kinds.map(async ([kind, schema]) => {
          const rows = await this.rows<SendsRow>(sendsSql(schema));
          if (!rows) unavailable.push(kind);
          return (rows ?? []).map((r) => sendsOf(kind, r));
        }),
      ).then((all) => all.flat()),
      this.rows<CallsInRow>(callsInSql(s.orders)).then((rows) => {
        if (!rows) unavailable.push('attempts');
        return (rows ?? []).map(callsInOf);
      }),
      this.rows<{ shop_id: string; method: string; providers: RouteStep[]; updated_at: Date }>(
        `SELECT shop_id, method, providers, updated_at FROM ${q(s.orders)}.ops_shop_routes
          ORDER BY shop_id, method LIMIT ${ROUTES_SHOWN}`,
      ),
    ]);
    const windowOrder = Object.keys(PROVIDER_WINDOWS);
    const order = <T extends { provider: string; window: string }>(a: T, b: T) =>
      windowOrder.indexOf(a.window) - windowOrder.indexOf(b.window) || a.provider.localeCompare(b.provider);
    return {
      at: new Date().toISOString(),
      windows: windowOrder as ProviderWindow[],
      sends: sends.sort((a, b) => order(a, b) || a.kind.localeCompare(b.kind)),
      callsIn: callsIn.sort(order),
      unavailable: unavailable.sort(),
      routes: (routes ?? []).map((r) => ({
        shopId: r.shop_id,
        method: r.method,
        providers: r.providers,
        updatedAt: r.updated_at.toISOString(),
      })),
      routesUnavailable: routes === null,
    };
  }

  /** A view that cannot be read leaves its figures out; each reason is logged once per process. */
  private rows<T>(sql: string): Promise<T[] | null> {
    return this.reads.query(sql).then(
      (r) => r.rows as T[],
      (err: Error) => {
        if (!this.warned.has(err.message)) {
          this.warned.add(err.message);
          this.logger.warn(`providers: figures left out: ${err.message}`);
        }
        return null;
      },
    );
  }
}

const q = (schema: string) => `"${schema.replace(/"/g, '')}"`;

/** Each send of the rows last sent in a window, one row per provider and window. */
function sendsSql(schema: string): string {
  return `SELECT d.provider, w.name AS window,
      count(*)::int AS sends,
      count(*) FILTER (WHERE a.answer = 'accepted')::int AS accepted,
      count(*) FILTER (WHERE a.answer = 'refused')::int AS refused,
      count(*) FILTER (WHERE a.answer = 'unavailable')::int AS unavailable,
      count(*) FILTER (WHERE a.answer = 'timed_out')::int AS timed_out,
      percentile_disc(0.5) WITHIN GROUP (ORDER BY a.ms) AS p50,
      percentile_disc(0.99) WITHIN GROUP (ORDER BY a.ms) AS p99,
      max(d.last_error_at) FILTER (WHERE d.last_error_at >= w.since) AS last_error_at
    FROM ${WINDOWS_SQL}
    JOIN ${q(schema)}.ops_provider_dispatches d ON d.last_sent_at >= w.since
    CROSS JOIN LATERAL unnest(d.send_answers, d.send_ms) AS a(answer, ms)
    GROUP BY d.provider, w.name`;
}

/** Orders' attempts that no dispatch row sent: the provider's own page or app took them. */
function callsInSql(schema: string): string {
  return `SELECT p.provider, w.name AS window,
      count(*)::int AS attempts,
      count(*) FILTER (WHERE p.status = 'success')::int AS success,
      count(*) FILTER (WHERE p.status = 'failed')::int AS failed,
      count(*) FILTER (WHERE p.status = 'pending')::int AS pending,
      max(p.updated_at) FILTER (WHERE p.status = 'failed') AS last_failed_at
    FROM ${WINDOWS_SQL}
    JOIN ${q(schema)}.ops_payment_attempts p ON p.created_at >= w.since
    WHERE NOT EXISTS (SELECT 1 FROM ${q(schema)}.ops_provider_dispatches d WHERE d.payment_id = p.payment_id)
    GROUP BY p.provider, w.name`;
}

function sendsOf(kind: SendKind, r: SendsRow): ProviderSends {
  return {
    provider: r.provider,
    kind,
    window: r.window,
    sends: r.sends,
    accepted: r.accepted,
    refused: r.refused,
    unavailable: r.unavailable,
    timedOut: r.timed_out,
    successRate: r.sends ? Math.round((r.accepted / r.sends) * 10_000) / 10_000 : null,
    p50Ms: r.p50,
    p99Ms: r.p99,
    lastErrorAt: r.last_error_at?.toISOString() ?? null,
  };
}

function callsInOf(r: CallsInRow): ProviderCallsIn {
  return {
    provider: r.provider,
    window: r.window,
    attempts: r.attempts,
    success: r.success,
    failed: r.failed,
    pending: r.pending,
    lastFailedAt: r.last_failed_at?.toISOString() ?? null,
  };
}
