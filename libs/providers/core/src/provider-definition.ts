import type {
  CardBrand,
  MethodInstrumentType,
  ProviderEvent,
  ProviderEventKind,
  ProviderStatus,
} from '@payments/contracts';
import type { ProviderClient } from './provider-answer';

/** What a provider can do for us: the registry and the conformance run read it. */
export interface ProviderCapabilities {
  /** Which of our operations it takes: payments of orders, payouts, P2P transfers. */
  operations: readonly ProviderEventKind[];
  instruments: readonly MethodInstrumentType[];
  /** Card brands it acquires ([] when it takes no cards). */
  brands: readonly CardBrand[];
  currencies: readonly string[];
}

export type Verification = { kind: 'valid'; timestamp: number } | { kind: 'invalid'; reason: string };
export type Normalization =
  { kind: 'ok'; event: Omit<ProviderEvent, 'receivedAt'> } | { kind: 'invalid'; reason: string };

/**
 * A provider that tells us what happened by a signed notification we store and acknowledge
 * (`POST /callbacks/{code}`), after we sent it the request ourselves.
 */
export interface NotificationInbound {
  kind: 'notification';
  verify(
    headers: Record<string, string | string[] | undefined>,
    rawBody: Buffer,
    secret: string,
    nowSeconds: number,
  ): Verification;
  normalize(rawBody: string): Normalization;
}

/**
 * A provider that calls us and waits for our answer (Click's Prepare/Complete, Payme's JSON-RPC):
 * callbacks-ingest serves its protocol on the paths named here, with a controller of its own.
 */
export interface RequestAnswerInbound {
  kind: 'request-answer';
  /** Paths under callbacks-ingest, for people and the conformance run. */
  paths: readonly string[];
}

export type SettingsParse<T> = { ok: true; value: T } | { ok: false; errors: { path: string; message: string }[] };

/** One provider's settings per shop and their validation: every error names its field. */
export interface ProviderSettings<T = unknown> {
  parse(input: unknown): SettingsParse<T>;
  /**
   * A provider whose shops each have an account with it (Click, Payme): operators set it per shop
   * (`PUT /ops/v1/shops/{id}/providers/{code}`, decision 341). `secret` names the member that is a
   * secret (sealed at rest and on `shops.settings`, never answered nor logged), `unique` the one
   * that tells the provider's calls apart and so belongs to one shop only.
   */
  account?: { secret: string; unique: string };
}

/**
 * Everything a provider is, in one folder `libs/providers/<code>` (ARCHITECTURE.md section 12):
 * capabilities, how we send to it, how we verify and read what it sends, how its statuses map to
 * ours, its settings per shop. Its simulator lives in the same folder (`simulator/`) and is
 * served by apps/provider-sandbox.
 */
export interface ProviderDefinition {
  code: string;
  /** The provider's name as payers see it on the hosted page. */
  displayName: string;
  capabilities: ProviderCapabilities;
  /** How we send to it; absent for a provider that is only ever paid from its own app (Click). */
  client?(baseUrl: string): ProviderClient;
  inbound: NotificationInbound | RequestAnswerInbound;
  /** Its own outcome vocabulary into ours: exhaustive, checked by the conformance run. */
  statusMap: Readonly<Record<string, ProviderStatus>>;
  settings: ProviderSettings;
  /** Its part of the shared conformance run. */
  conformance: ConformanceKit;
}

/** A payment the conformance run plays through a provider's inbound side, in memory. */
export interface ConformanceTerms {
  reference: string;
  amount: string;
  currency: string;
}
export type ConformanceOutcome =
  { kind: 'event'; event: Omit<ProviderEvent, 'receivedAt'> } | { kind: 'refused'; reason: string };

/**
 * What each provider folder gives the shared conformance run (libs/providers/registry): a payment
 * it can take, played the way the provider would report it (its simulator's messages, its own
 * verification and rules), genuine or forged, so that the same flows and faults run for every one.
 */
export interface ConformanceKit {
  terms: ConformanceTerms;
  /** The provider reports `terms` paid; `forged`: signed with a key that is not the shop's. */
  paid(terms: ConformanceTerms, opts: { forged?: boolean }): ConformanceOutcome;
}
