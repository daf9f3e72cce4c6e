/**
 * The view of a link that is still waiting for its payer, kept for a moment so that a page load
 * does not wait for a request-reply round trip to orders or payouts (issue 20: a page answers in
 * under 50 ms p99 with 50 payers at once; docs/decisions.md 223).
 *
 * Only a live, unpaid link's view is kept: what it shows (shop, amount, methods, expiry) does not
 * change while it waits, and everything that changes it is re-read at once:
 * - a submit always reads the order afresh (the services refuse a second payment whatever a page
 *   showed), and this instance forgets the link when it submits;
 * - a view past its `expiresAt` is never served;
 * - a view older than `refreshAfterMs` is served once more while one fresh read runs behind it,
 *   and one older than `maxAgeMs` is not served at all, so a link cancelled elsewhere (by the
 *   merchant, an operator, or a payment through another instance) shows the form at most
 *   `maxAgeMs` longer, and its submit is refused then.
 * Views that follow a payment (processing, paid, failed) are never kept: the page that refreshes
 * every two seconds to follow the status must see the status.
 */
export interface LiveViewCacheOptions {
  /** A view older than this is refreshed behind the answer that serves it. */
  refreshAfterMs: number;
  /** A view older than this is not served. */
  maxAgeMs: number;
  /** Views kept at most; the oldest-stored go first. */
  maxEntries: number;
  now?: () => number;
}

interface Entry<V> {
  view: V;
  at: number;
  expiresAt: number;
}

export type Read<V> = { kind: 'ok'; value: V } | { kind: string };

export class LiveViewCache<V extends { linkStatus?: string; expiresAt?: string }> {
  private readonly entries = new Map<string, Entry<V>>();
  /** Reads under way, so that many payers of one link make one read. */
  private readonly reading = new Map<string, { answer: Promise<Read<V>>; forgotten: boolean }>();
  private readonly now: () => number;

  constructor(private readonly opts: LiveViewCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The link's view: from memory when a fresh enough live view is kept, else from `read`
   * (concurrent callers of one key share it). A live answer is kept; any other is not, and
   * drops what was kept.
   */
  async get<R extends Read<V>>(key: string, read: () => Promise<R>): Promise<R | { kind: 'ok'; value: V }> {
    const now = this.now();
    const e = this.entries.get(key);
    if (e && now < e.expiresAt && now - e.at < this.opts.maxAgeMs) {
      if (now - e.at >= this.opts.refreshAfterMs && !this.reading.has(key)) void this.load(key, read).catch(() => {});
      return { kind: 'ok', value: e.view };
    }
    if (e) this.entries.delete(key);
    return (await this.load(key, read)) as R;
  }

  /**
   * Runs a change of the link (a payment, a payout's details) with the link forgotten before and
   * after it: a load meanwhile reads afresh, and a read that started before the change cannot
   * bring the old view back.
   */
  async changing<R>(key: string, change: () => Promise<R>): Promise<R> {
    this.forget(key);
    try {
      return await change();
    } finally {
      this.forget(key);
    }
  }

  /** Forgets a link, e.g. once this instance sent its payment. */
  forget(key: string): void {
    this.entries.delete(key);
    const under = this.reading.get(key);
    if (under) under.forgotten = true; // a read that started before must not bring the view back
  }

  private load<R extends Read<V>>(key: string, read: () => Promise<R>): Promise<R> {
    const under = this.reading.get(key);
    if (under) return under.answer as Promise<R>;
    const started = this.now();
    const entry = { answer: undefined as unknown as Promise<Read<V>>, forgotten: false };
    const p = read()
      .then((r) => {
        if (!entry.forgotten) this.keep(key, r, started);
        return r;
      })
      .finally(() => {
        if (this.reading.get(key) === entry) this.reading.delete(key);
      });
    entry.answer = p;
    this.reading.set(key, entry);
    return p;
  }

  private keep(key: string, r: Read<V>, at: number): void {
    const view = r.kind === 'ok' ? (r as { value: V }).value : undefined;
    const expiresAt = view?.expiresAt ? Date.parse(view.expiresAt) : NaN;
    if (!view || view.linkStatus !== 'live' || !Number.isFinite(expiresAt)) {
      this.entries.delete(key);
      return;
    }
    this.entries.delete(key); // re-inserted last: the Map's order is the eviction order
    this.entries.set(key, { view, at, expiresAt });
    while (this.entries.size > this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
