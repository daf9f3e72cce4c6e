import { AcquirerProfile, parseBinRanges, refusalOf } from './acquirer-profile';

const profile: AcquirerProfile = {
  code: 'sandbox',
  unavailable: [{ from: '450000', to: '450099' }],
  declined: [{ from: '450100', to: '450199' }],
};

describe('a sandbox acquirer’s BIN profile (decision 323)', () => {
  it('when BINs and ranges are listed, then each becomes a range; none is none', () => {
    expect(parseBinRanges('450000-450099, 450150')).toEqual({
      value: [
        { from: '450000', to: '450099' },
        { from: '450150', to: '450150' },
      ],
    });
    expect(parseBinRanges('none')).toEqual({ value: [] });
  });

  it.each(['45000', '450000-4500', 'abcdef', '450099-450000'])(
    'when the entry is %s, then the problem names it',
    (raw) => {
      expect(parseBinRanges(raw)).toEqual({ problem: expect.stringContaining(raw.split('-')[0].slice(0, 5)) });
    },
  );

  it.each<[string, 503 | 422 | null]>([
    ['4500000000000007', 503],
    ['4500990000000000', 503],
    ['4501000000000006', 422],
    ['4501990000000000', 422],
    ['4502000000000000', null],
    ['4111111111111111', null],
  ])('when a card payment comes with %s, then the acquirer answers %s', (pan, status) => {
    const r = refusalOf(profile, { kind: 'payment', cards: { 'payer.cardNumber': pan } });
    expect(r?.status ?? null).toBe(status);
    // The answer names the BIN, never the number.
    if (r) expect(r.detail).not.toContain(pan);
    // A decline names its retryable code, so orders may fail over (decision 322); a 503 names none.
    if (r) expect(r.statusCode).toBe(status === 422 ? '2-07-01' : undefined);
  });

  it('when it is a payout, or a payment without a card, then the profile plays no part', () => {
    expect(refusalOf(profile, { kind: 'payout', cards: { 'payee.cardNumber': '4500000000000007' } })).toBeNull();
    expect(refusalOf(profile, { kind: 'payment' })).toBeNull();
  });
});
