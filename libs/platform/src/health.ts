/**
 * What a service knows of its own health, kept apart from how it is served (health.controller.ts).
 *
 * Each part of a service that can stop it from working — its database, a Kafka consumer, a
 * producer — is a HealthComponent the app registers. Two questions are asked of them:
 * - **ready**: can the service do its work now? Every component must be ready. A load balancer or
 *   Kubernetes stops sending it traffic while it is not; nothing is restarted.
 *   A component may count for information only (`affectsReadiness: false`): shown as degraded,
 *   never taking the service out of traffic (an outbox in front of an HTTP API, which keeps
 *   taking requests while the broker is away — that is what the outbox is for).
 * - **live**: is the process still able to recover by itself? It is not when a component says it
 *   is wedged (a consumer that crashed and will not restart), or when a component that needs the
 *   broker has not been ready for longer than the liveness grace and says a restart would help (a
 *   fresh client finds the broker and the topics it needs in order): then the fault is this
 *   process's own client. A database or broker outage, a missing topic, a cluster that cannot take
 *   acks=all writes never fail liveness: restarting every pod would change none of them.
 */

export interface ComponentHealth {
  /** Whether the component can do its work now. */
  ready: boolean;
  /** What an operator reads: what the component does, or why it cannot. */
  detail: string;
  /** Since when it has not been ready (epoch ms); absent while ready. */
  notReadySince?: number;
  /** Beyond recovery by waiting: liveness fails at once. */
  wedged?: boolean;
  /** Set by the registry for a component that does not affect readiness (shown as degraded). */
  optional?: true;
}

export interface HealthComponent {
  /** Stable and short: `database`, `kafka-consumer`, `kafka-producer:replies`. */
  readonly name: string;
  /** Needs the broker: a long failure counts against liveness only if `restartWouldHelp` says so. */
  readonly needsBroker?: boolean;
  /** False: its trouble is shown, but the service stays ready. */
  readonly affectsReadiness?: boolean;
  health(now: number): ComponentHealth | Promise<ComponentHealth>;
  /** Asked after the liveness grace: would a fresh client get further than this one? */
  restartWouldHelp?(): Promise<boolean>;
}

export interface HealthSettings {
  /** How long a component that needs the broker may be not ready before liveness fails (HEALTH_LIVENESS_GRACE_MS). */
  livenessGraceMs: number;
  /** How long one component's check may take before it counts as not ready. */
  checkTimeoutMs: number;
}

export const DEFAULT_HEALTH_SETTINGS: HealthSettings = { livenessGraceMs: 120_000, checkTimeoutMs: 2_000 };

export interface HealthReport {
  ready: boolean;
  live: boolean;
  components: Record<string, ComponentHealth>;
  /** Why liveness fails, when it does. */
  liveness?: string;
}

/** The components of one running app. */
export class HealthRegistry {
  private readonly components = new Map<string, HealthComponent>();

  constructor(readonly settings: HealthSettings = DEFAULT_HEALTH_SETTINGS) {}

  /** Adds a component; the answer removes it again. A second one of the same name replaces the first. */
  register(component: HealthComponent): () => void {
    this.components.set(component.name, component);
    return () => {
      if (this.components.get(component.name) === component) this.components.delete(component.name);
    };
  }

  names(): string[] {
    return [...this.components.keys()];
  }

  async report(now = Date.now()): Promise<HealthReport> {
    const entries = await Promise.all(
      [...this.components.values()].map(async (c) => [c, await this.checkOne(c, now)] as const),
    );
    const components = Object.fromEntries(
      entries.map(([c, h]) => [c.name, c.affectsReadiness === false ? { ...h, optional: true as const } : h]),
    );
    const ready = entries.every(([c, h]) => h.ready || c.affectsReadiness === false);
    const liveness = await this.livenessFailure(entries, now);
    return { ready, live: liveness === undefined, components, ...(liveness ? { liveness } : {}) };
  }

  private async checkOne(component: HealthComponent, now: number): Promise<ComponentHealth> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ComponentHealth>((resolve) => {
      timer = setTimeout(
        () => resolve({ ready: false, detail: `no answer within ${this.settings.checkTimeoutMs} ms` }),
        this.settings.checkTimeoutMs,
      );
    });
    try {
      return await Promise.race([Promise.resolve(component.health(now)), timeout]);
    } catch (err) {
      return { ready: false, detail: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  private async livenessFailure(
    entries: readonly (readonly [HealthComponent, ComponentHealth])[],
    now: number,
  ): Promise<string | undefined> {
    const wedged = entries.find(([, h]) => h.wedged);
    if (wedged) return `${wedged[0].name} is wedged: ${wedged[1].detail}`;
    const stuck = entries.find(
      ([c, h]) =>
        c.needsBroker &&
        !h.ready &&
        h.notReadySince !== undefined &&
        now - h.notReadySince > this.settings.livenessGraceMs,
    );
    if (!stuck?.[0].restartWouldHelp) return undefined;
    const helps = await this.within(stuck[0].restartWouldHelp(), false);
    if (!helps) return undefined;
    const seconds = Math.round((now - stuck[1].notReadySince!) / 1000);
    return `${stuck[0].name} has not been ready for ${seconds} s while a fresh client would get through: ${stuck[1].detail}`;
  }

  /** `work`'s answer, or `otherwise` after the check timeout (a probe must answer in time). */
  private async within<T>(work: Promise<T>, otherwise: T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(otherwise), this.settings.checkTimeoutMs);
    });
    try {
      return await Promise.race([work.catch(() => otherwise), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
