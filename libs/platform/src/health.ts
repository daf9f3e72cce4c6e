/**
 * What a service knows of its own health, kept apart from how it is served (health.controller.ts).
 *
 * Each part of a service that can stop it from working — its database, a Kafka consumer, a
 * producer — is a HealthComponent the app registers. Two questions are asked of them:
 * - **ready**: can the service do its work now? Every component must be ready. A load balancer or
 *   Kubernetes stops sending it traffic while it is not; nothing is restarted.
 * - **live**: is the process still able to recover by itself? It is not when a component says it
 *   is wedged (a consumer that crashed and will not restart), or when a component that needs the
 *   broker has not been ready for longer than the liveness grace while the broker answers a fresh
 *   client: then the fault is this process's, and a restart is what fixes it. A database or broker
 *   outage alone never fails liveness: restarting every pod would not bring either back.
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
}

export interface HealthComponent {
  /** Stable and short: `database`, `kafka-consumer`, `kafka-producer:replies`. */
  readonly name: string;
  /** Needs the broker: a long failure counts against liveness only while the broker answers others. */
  readonly needsBroker?: boolean;
  health(now: number): ComponentHealth | Promise<ComponentHealth>;
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

/** Whether a fresh client reaches the broker (a fresh client: the service's own may be the wedged one). */
export type BrokerProbe = () => Promise<boolean>;

/** The components of one running app. */
export class HealthRegistry {
  private readonly components = new Map<string, HealthComponent>();
  private brokerProbe?: BrokerProbe;

  constructor(readonly settings: HealthSettings = DEFAULT_HEALTH_SETTINGS) {}

  /** Adds a component; the answer removes it again. A second one of the same name replaces the first. */
  register(component: HealthComponent): () => void {
    this.components.set(component.name, component);
    return () => {
      if (this.components.get(component.name) === component) this.components.delete(component.name);
    };
  }

  /** How liveness tells "the broker is down" from "this process's client is stuck". */
  setBrokerProbe(probe: BrokerProbe): void {
    this.brokerProbe = probe;
  }

  names(): string[] {
    return [...this.components.keys()];
  }

  async report(now = Date.now()): Promise<HealthReport> {
    const entries = await Promise.all(
      [...this.components.values()].map(async (c) => [c, await this.checkOne(c, now)] as const),
    );
    const components = Object.fromEntries(entries.map(([c, h]) => [c.name, h]));
    const ready = entries.every(([, h]) => h.ready);
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
    if (!stuck || !this.brokerProbe) return undefined;
    const brokerAnswers = await this.brokerProbe().catch(() => false);
    if (!brokerAnswers) return undefined;
    const seconds = Math.round((now - stuck[1].notReadySince!) / 1000);
    return `${stuck[0].name} has not been ready for ${seconds} s while the broker answers a fresh client: ${stuck[1].detail}`;
  }
}
