import { LoggerService } from '@nestjs/common';
import { Client } from 'pg';
import { backoffMs } from '@payments/backoff';
import { onLocalWake } from './local-wake';
import { listenToChannel } from './pg-listen';

export interface NotifiedWorkerOptions {
  /** Names the worker in its log lines. */
  name: string;
  databaseUrl: string;
  /** The channel a committed transaction NOTIFYs when it queued work. */
  channel: string;
  /** One round of work; answers true when more is waiting (a full batch), to go again at once. */
  round: () => Promise<boolean>;
  /** How long to sleep when a round left nothing to do (the polling fallback). */
  idleDelayMs: () => Promise<number> | number;
  logger: LoggerService;
}

/** A failing round is retried after 100 ms, doubling up to 5 s while it keeps failing. */
const ROUND_BACKOFF = { baseMs: 100, capMs: 5000 };

/**
 * The loop of a database-queued worker (outbox relay, attempt dispatcher): a round, then sleep
 * until a NOTIFY, the idle delay, or at once if more is waiting. A NOTIFY that arrives during a
 * round is not slept through; a failing round is retried with backoff up to 5 s; a lost LISTEN
 * connection is re-opened while polling carries on.
 */
export class NotifiedWorker {
  private listener?: Client;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private notified = false;
  private unregister?: () => void;

  constructor(private readonly opts: NotifiedWorkerOptions) {}

  async start(): Promise<void> {
    if (this.running) return;
    await this.listen();
    this.unregister = onLocalWake(this.opts.channel, () => this.poke());
    this.running = true;
    this.loop = this.run();
  }

  /** Work was queued: run a round now (or right after the one in flight). */
  poke(): void {
    this.notified = true;
    this.wake?.();
  }

  /** Stops after the round in flight. */
  async stop(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  private async listen(): Promise<void> {
    this.listener = await listenToChannel(
      this.opts.databaseUrl,
      this.opts.channel,
      {
        onNotify: () => this.poke(),
        onLost: () => (this.listener = undefined),
      },
      this.opts.logger,
    );
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        this.notified = false;
        const more = await this.opts.round();
        failures = 0;
        if (!this.listener && this.running) await this.listen();
        if (more || this.notified) continue;
        const delayMs = await this.opts.idleDelayMs();
        // Work queued (or a slot freed) while the delay was being worked out: not slept through.
        if (this.notified) continue;
        await this.sleep(delayMs);
      } catch (err) {
        const delayMs = backoffMs(++failures, ROUND_BACKOFF);
        this.opts.logger.warn(`${this.opts.name} failed, retrying in ${delayMs} ms: ${(err as Error).message}`);
        await this.sleep(delayMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
