import { lagSeconds, OffsetHistory } from './offset-history';

/** A partition whose high watermark was 10 at t=0..1000 ms, 20 from 3000 ms, 20 still at 9000 ms. */
function aHistory(): OffsetHistory {
  const h = new OffsetHistory();
  h.record(10n, 0);
  h.record(10n, 1000);
  h.record(20n, 3000);
  h.record(20n, 9000);
  return h;
}

describe('the time lag of a consumer group, from remembered high watermarks', () => {
  it.each([
    ['the group is caught up', 0, 20n, 20n, 10_000],
    ['the group is past the watermark it was given (a newer read)', 0, 21n, 20n, 10_000],
    // Offset 10 was appended between the last sight of 10 (1000 ms) and the first of 20 (3000 ms):
    // 1/10 of the way, at 1200 ms, so 8.8 s old at 10 s.
    ['the oldest unprocessed message was appended between two readings', 8.8, 10n, 20n, 10_000],
    ['the last message is the oldest unprocessed one', 7, 19n, 20n, 10_000],
    // Older than anything remembered: dated at the first reading, a lower bound.
    ['the oldest unprocessed message is older than the first reading', 10, 3n, 20n, 10_000],
    ['the watermark passed the committed offset after the last reading', 0, 20n, 25n, 10_000],
  ])('when %s, then the lag is %s s', (_case, expected, committed, high, now) => {
    expect(lagSeconds(aHistory(), committed, high, now)).toBeCloseTo(expected, 6);
  });

  it('when a topic is recreated and its watermark goes down, then the history starts again from that reading', () => {
    const h = aHistory();
    h.record(2n, 20_000);
    expect(lagSeconds(h, 0n, 2n, 25_000)).toBe(5);
  });
});
