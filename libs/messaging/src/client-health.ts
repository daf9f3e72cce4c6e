import type { Consumer } from 'kafkajs';
import type { ComponentHealth, HealthComponent } from '@payments/platform';

/**
 * Whether a fresh client would do what a stuck component cannot: the broker answers, and the
 * topics it needs exist with leaders and enough in-sync replicas (broker-probe.ts). Only then
 * would a restart help; a missing topic or a broker that cannot take acks=all writes would stop a
 * restarted process just the same.
 */
export type FreshClientCheck = (topics: readonly string[]) => Promise<boolean>;

/**
 * How long a consumer may go without a heartbeat or a fetch, or a producer's send may stay
 * unanswered, before the component is not ready (HEALTH_STALL_MS). Above the consumer's session
 * timeout (10 s): by then the broker has taken its partitions away.
 */
export const DEFAULT_STALL_MS = 15_000;

/** What ConsumerHealth and ProducerHealth are given. */
export interface HealthOptions {
  /** HEALTH_STALL_MS; DEFAULT_STALL_MS where not given. */
  stallMs?: number;
  clock?: () => number;
  /** Asked after the liveness grace; without it a restart is never judged to help. */
  freshClient?: FreshClientCheck;
}

type ConsumerState = 'starting' | 'member' | 'rebalancing' | 'restarting' | 'crashed' | 'stopped';

/**
 * Whether a kafkajs consumer is a working member of its group, from its own events: it joined,
 * and a heartbeat or a fetch succeeded within the stall bound (kafkajs's FETCH comes after a fetch
 * that returned; FETCH_START, before every attempt, would keep a consumer that cannot reach the
 * broker looking busy). A consumer whose handler never returns has neither, and the broker drops
 * it from the group after its session timeout; this sees the same a few seconds later. A crash
 * kafkajs will not restart from is beyond recovery.
 */
export class ConsumerHealth implements HealthComponent {
  readonly needsBroker = true;
  private state: ConsumerState = 'starting';
  private since: number;
  private lastSeen: number;
  private lastError?: string;
  private topics: readonly string[] = [];

  private readonly stallMs: number;
  private readonly clock: () => number;
  private readonly freshClient?: FreshClientCheck;

  constructor(
    readonly name: string,
    private readonly group: string,
    opts: HealthOptions = {},
  ) {
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
    this.clock = opts.clock ?? Date.now;
    this.freshClient = opts.freshClient;
    this.since = this.lastSeen = this.clock();
  }

  /** The topics it reads: what a fresh client must find before a restart could help. */
  subscribedTo(topics: readonly string[]): this {
    this.topics = topics;
    return this;
  }

  /** After the liveness grace: would a restarted process get further? */
  restartWouldHelp(): Promise<boolean> {
    return this.freshClient ? this.freshClient(this.topics) : Promise.resolve(false);
  }

  /**
   * Follows the consumer's events from now on; call before `connect`. `restartedAfterCrash`: its
   * owner starts it again after a crash kafkajs gives up on (restartAfterCrash), so such a crash
   * reads as restarting, not wedged.
   */
  watch(consumer: Consumer, opts: { restartedAfterCrash?: boolean } = {}): this {
    const { events } = consumer;
    const seen = () => {
      this.lastSeen = this.clock();
      if (this.state === 'restarting') this.set('rebalancing');
    };
    consumer.on(events.GROUP_JOIN, () => {
      this.set('member');
      seen();
    });
    consumer.on(events.HEARTBEAT, seen);
    consumer.on(events.FETCH, seen);
    consumer.on(events.REBALANCING, () => this.set('rebalancing'));
    consumer.on(events.CRASH, (e) => {
      this.lastError = e.payload.error.message;
      this.set(e.payload.restart || opts.restartedAfterCrash ? 'restarting' : 'crashed');
    });
    consumer.on(events.STOP, () => this.set('stopped'));
    return this;
  }

  health(now: number): ComponentHealth {
    const quiet = now - this.lastSeen;
    switch (this.state) {
      case 'member':
      case 'rebalancing':
        if (quiet <= this.stallMs)
          return {
            ready: true,
            detail: `${this.state === 'member' ? 'a member of' : 'rejoining'} group ${this.group}`,
          };
        return {
          ready: false,
          detail: `no heartbeat or fetch of group ${this.group} for ${Math.round(quiet / 1000)} s`,
          notReadySince: this.lastSeen,
        };
      case 'starting':
        return { ready: false, detail: `joining group ${this.group}`, notReadySince: this.since };
      case 'restarting':
        return {
          ready: false,
          detail: `crashed (${this.lastError}); kafkajs is restarting it`,
          notReadySince: this.since,
        };
      case 'crashed':
        return {
          ready: false,
          wedged: true,
          detail: `crashed and will not restart: ${this.lastError}`,
          notReadySince: this.since,
        };
      case 'stopped':
        return { ready: false, detail: `stopped (group ${this.group})`, notReadySince: this.since };
    }
  }

  private set(state: ConsumerState): void {
    if (state !== this.state) this.since = this.clock();
    this.state = state;
  }
}

/**
 * Whether a producer gets messages through, from the sends it was given: one that has waited
 * longer than the stall bound (kafkajs still retrying it) makes it not ready, and so does a run of
 * failed sends longer than the bound while sends are still being tried. A producer nobody uses
 * counts as ready: there is nothing to judge it by.
 */
export class ProducerHealth implements HealthComponent {
  readonly needsBroker = true;
  /** Each send in flight: when it started and where it goes. */
  private readonly pending = new Map<number, { started: number; topics: readonly string[] }>();
  private failedTopics: readonly string[] = [];
  private nextId = 0;
  private failingSince?: number;
  private lastAttempt = 0;
  private lastError?: string;
  private sent = 0;
  private failed = 0;
  private readonly stallMs: number;
  private readonly clock: () => number;
  private readonly judgeFailures: boolean;
  private readonly freshClient?: FreshClientCheck;
  /** False: shown (as degraded) but the service stays ready — an outbox in front of an HTTP API. */
  readonly affectsReadiness: boolean;

  constructor(
    readonly name: string,
    opts: HealthOptions & {
      /** False where a failed send is someone else's trouble (a reply to a requester that is gone). */
      judgeFailures?: boolean;
      affectsReadiness?: boolean;
    } = {},
  ) {
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
    this.clock = opts.clock ?? Date.now;
    this.judgeFailures = opts.judgeFailures ?? true;
    this.freshClient = opts.freshClient;
    this.affectsReadiness = opts.affectsReadiness ?? true;
  }

  /** After the liveness grace: would a fresh client get the waiting (or failing) sends through? */
  restartWouldHelp(): Promise<boolean> {
    const topics = new Set<string>(this.failedTopics);
    for (const p of this.pending.values()) for (const t of p.topics) topics.add(t);
    return this.freshClient ? this.freshClient([...topics]) : Promise.resolve(false);
  }

  /** Runs a send to `topics` and records how it went; the answer is the send's own. */
  async track<T>(send: Promise<T>, topics: readonly string[] = []): Promise<T> {
    const id = this.nextId++;
    const started = this.clock();
    this.pending.set(id, { started, topics });
    this.lastAttempt = started;
    try {
      const result = await send;
      this.sent += 1;
      this.failingSince = undefined;
      return result;
    } catch (err) {
      this.failed += 1;
      this.failingSince ??= started;
      this.failedTopics = topics;
      this.lastError = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      this.pending.delete(id);
    }
  }

  health(now: number): ComponentHealth {
    let oldest: number | undefined;
    for (const { started } of this.pending.values()) if (oldest === undefined || started < oldest) oldest = started;
    if (oldest !== undefined && now - oldest > this.stallMs)
      return {
        ready: false,
        detail: `a send has waited ${Math.round((now - oldest) / 1000)} s for the broker${this.lastError ? ` (last error: ${this.lastError})` : ''}`,
        notReadySince: oldest,
      };
    if (
      this.judgeFailures &&
      this.failingSince !== undefined &&
      now - this.failingSince > this.stallMs &&
      now - this.lastAttempt <= this.stallMs
    )
      return {
        ready: false,
        detail: `every send has failed for ${Math.round((now - this.failingSince) / 1000)} s: ${this.lastError}`,
        notReadySince: this.failingSince,
      };
    return { ready: true, detail: `${this.sent} sent, ${this.failed} failed, ${this.pending.size} in flight` };
  }
}
