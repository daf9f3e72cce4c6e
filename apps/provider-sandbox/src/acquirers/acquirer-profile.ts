/** A range of six-digit BINs, both ends included. */
export interface BinRange {
  from: string;
  to: string;
}

/**
 * How one sandbox acquirer behaves apart from the amount's scenario (decision 323): card payments
 * whose BIN is in `unavailable` are answered 503 (the acquirer cannot take them now: orders
 * sends again, then fails over), those in `declined` 422 naming the decline's status code
 * `2-07-01` (refused before acceptance, retry allowed: orders fails over at once). Two acquirers configured differently make routing and failover playable.
 */
export interface AcquirerProfile {
  code: string;
  unavailable: readonly BinRange[];
  declined: readonly BinRange[];
}

export const ACQUIRER_PROFILE = Symbol('ACQUIRER_PROFILE');

/** `450000-450099,450150` → ranges, `none` → none; a problem names the entry that is not one. */
export function parseBinRanges(raw: string): { value: BinRange[] } | { problem: string } {
  const value: BinRange[] = [];
  if (raw.trim() === 'none') return { value };
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const m = /^([0-9]{6})(?:-([0-9]{6}))?$/.exec(entry);
    if (!m) return { problem: `"${entry.slice(0, 20)}" is not a BIN (6 digits) or a range of two (450000-450099)` };
    const to = m[2] ?? m[1];
    if (to < m[1]) return { problem: `"${entry}" ends before it starts` };
    value.push({ from: m[1], to });
  }
  return { value };
}

const inRange = (bin: string, ranges: readonly BinRange[]) => ranges.some((r) => bin >= r.from && bin <= r.to);

/**
 * What the acquirer answers a card payment before taking it, by the BIN of its cards; null when
 * it takes it (and the amount's scenario plays).
 */
export function refusalOf(
  profile: AcquirerProfile,
  request: { kind?: string; cards?: Record<string, string> },
): { status: 503 | 422; detail: string; statusCode?: string } | null {
  if ((request.kind ?? 'payment') !== 'payment' || !request.cards) return null;
  for (const pan of Object.values(request.cards)) {
    const bin = pan.slice(0, 6);
    if (inRange(bin, profile.unavailable))
      return { status: 503, detail: `${profile.code} cannot take cards of BIN ${bin} now; try again later` };
    // The decline names its code (2-07-01, retry allowed): only a named retryable decline fails over.
    if (inRange(bin, profile.declined))
      return { status: 422, detail: `${profile.code} declines cards of BIN ${bin}`, statusCode: '2-07-01' };
  }
  return null;
}
