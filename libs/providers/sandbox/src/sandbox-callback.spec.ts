import { parseSandboxCallback, SANDBOX_PROVIDER_CODE } from './sandbox-callback';

const aCallback = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  eventId: 'evt-1',
  kind: 'payment',
  reference: 'b7a3c0de-0000-4000-8000-000000000001',
  paymentId: 'pay-1',
  status: 'success',
  amount: '100.00',
  currency: 'USD',
  ...overrides,
});

const without = (field: string): Record<string, unknown> => {
  const c = aCallback();
  delete c[field];
  return c;
};

describe('parseSandboxCallback', () => {
  it('when the body is a complete callback, then it becomes a provider event of the sandbox with every field carried over', () => {
    const body = aCallback({ tokenStandard: 'TRC20', currency: 'USDT', reason: 'all good' });
    expect(parseSandboxCallback(JSON.stringify(body))).toEqual({
      kind: 'ok',
      event: {
        providerCode: SANDBOX_PROVIDER_CODE,
        providerEventId: 'evt-1',
        kind: 'payment',
        reference: 'b7a3c0de-0000-4000-8000-000000000001',
        paymentId: 'pay-1',
        status: 'success',
        amount: '100.00',
        currency: 'USDT',
        tokenStandard: 'TRC20',
        reason: 'all good',
      },
    });
  });

  it.each([
    ['payment', 'success'],
    ['payout', 'failed'],
    ['p2p', 'pending'],
  ])('when the kind is %s and the status %s, then both are kept', (kind, status) => {
    expect(parseSandboxCallback(JSON.stringify(aCallback({ kind, status })))).toMatchObject({
      kind: 'ok',
      event: { kind, status },
    });
  });

  it.each(['paymentId', 'tokenStandard', 'reason'])(
    'when the optional %s is absent, then the callback is valid without it',
    (field) => {
      const r = parseSandboxCallback(JSON.stringify(without(field)));
      expect(r.kind).toBe('ok');
      if (r.kind === 'ok') expect(r.event[field as keyof typeof r.event]).toBeUndefined();
    },
  );

  it.each(['USDT_TRON', 'BTC', 'USD'])('when the currency is %s, then it is accepted', (currency) => {
    expect(parseSandboxCallback(JSON.stringify(aCallback({ currency })))).toMatchObject({
      kind: 'ok',
      event: { currency },
    });
  });

  it.each([
    ['the body is not JSON', 'not json', 'body is not JSON'],
    ['the body is empty', '', 'body is not JSON'],
    ['the body is a JSON array', '[]', 'must be an object'],
    ['the body is JSON null', 'null', 'must be an object'],
    ['the body is a JSON string', '"x"', 'must be an object'],
  ])('when %s, then it is invalid', (_case, raw, reason) => {
    const r = parseSandboxCallback(raw);
    expect(r).toEqual({ kind: 'invalid', reason: expect.stringContaining(reason) });
  });

  it.each([
    ['eventId', without('eventId')],
    ['eventId', aCallback({ eventId: '' })],
    ['eventId', aCallback({ eventId: 'x'.repeat(129) })],
    ['eventId', aCallback({ eventId: 42 })],
    ['kind', without('kind')],
    ['kind', aCallback({ kind: 'refund' })],
    ['reference', without('reference')],
    ['reference', aCallback({ reference: '' })],
    ['reference', aCallback({ reference: 'r'.repeat(129) })],
    ['paymentId', aCallback({ paymentId: '' })],
    ['paymentId', aCallback({ paymentId: 7 })],
    ['status', without('status')],
    ['status', aCallback({ status: 'completed' })],
    ['status', aCallback({ status: 'SUCCESS' })],
    ['amount', without('amount')],
    ['amount', aCallback({ amount: 100 })],
    ['amount', aCallback({ amount: '-1' })],
    ['amount', aCallback({ amount: '1e3' })],
    ['amount', aCallback({ amount: '1,5' })],
    ['amount', aCallback({ amount: '' })],
    ['currency', without('currency')],
    ['currency', aCallback({ currency: '' })],
    ['currency', aCallback({ currency: 'usd' })],
    ['currency', aCallback({ currency: 'US D' })],
    ['currency', aCallback({ currency: 'C'.repeat(33) })],
    ['tokenStandard', aCallback({ tokenStandard: '' })],
    ['tokenStandard', aCallback({ tokenStandard: 'T'.repeat(17) })],
    ['reason', aCallback({ reason: 'r'.repeat(513) })],
    ['reason', aCallback({ reason: 5 })],
  ])('when the field %s is missing or wrong, then the callback is invalid and the reason names it', (field, body) => {
    const r = parseSandboxCallback(JSON.stringify(body));
    expect(r).toEqual({ kind: 'invalid', reason: expect.stringContaining(field) });
  });
});
