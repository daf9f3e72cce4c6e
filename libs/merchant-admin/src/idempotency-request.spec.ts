import {
  canonicalJson,
  fingerprintOf,
  idempotencyKeyOf,
  IdempotentRequest,
  newObjectId,
  routeOf,
} from './idempotency-request';

const SHOP = '8f0c1e0e-6a38-4b43-9d1e-2d2b7cf3f0a1';
const request = (over: Partial<IdempotentRequest> & { key?: string } = {}): IdempotentRequest => ({
  method: 'POST',
  url: '/order',
  headers: over.key === undefined ? {} : { 'idempotency-key': over.key },
  body: { a: 1 },
  shop: { shopId: SHOP },
  ...over,
});

describe('idempotency request parts', () => {
  it.each([
    ['k', true],
    ['order-1001_retry:2', true],
    ['x'.repeat(255), true],
    ['', false],
    ['x'.repeat(256), false],
    ['has space', false],
    ['tab\t', false],
    ['é', false],
  ])('when the Idempotency-Key is %j, then it is accepted: %s', (key, ok) => {
    const run = () => idempotencyKeyOf(request({ key }));
    if (ok) expect(run()).toBe(key);
    else
      expect(run).toThrow(
        expect.objectContaining({
          kind: 'validation',
          errors: [expect.objectContaining({ path: "headers['Idempotency-Key']" })],
        }),
      );
  });

  it.each([
    ['/order', '/order'],
    ['/api/v1/order', '/order'],
    ['/api/v1/order/refund', '/order/refund'],
    ['/api/v1x/order', '/api/v1x/order'],
    ['/order?x=1', '/order'],
    ['/api/v1/payouts/7a1c/cancel', '/payouts/7a1c/cancel'],
  ])('when the path is %s, then the operation is %s', (url, route) => {
    expect(routeOf(request({ url }))).toBe(route);
  });

  it('when two bodies differ only in key order, then their fingerprints are equal; when a value differs, then not', () => {
    const a = fingerprintOf(request({ body: { x: { b: '1', a: [1, { d: 2, c: 3 }] } } }));
    const b = fingerprintOf(request({ body: { x: { a: [1, { c: 3, d: 2 }], b: '1' } } }));
    const c = fingerprintOf(request({ body: { x: { a: [1, { c: 3, d: 2 }], b: '2' } } }));
    expect(a).toEqual(b);
    expect(a.bodySha256).not.toBe(c.bodySha256);
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('when the same shop, route and key come again, then the new object id is the same UUID; any part different, then another', () => {
    const id = newObjectId(request({ key: 'k1' }));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newObjectId(request({ key: 'k1', url: '/api/v1/order' }))).toBe(id);
    expect(newObjectId(request({ key: 'k2' }))).not.toBe(id);
    expect(newObjectId(request({ key: 'k1', url: '/order/refund' }))).not.toBe(id);
    expect(newObjectId(request({ key: 'k1', shop: { shopId: '00000000-0000-4000-8000-000000000000' } }))).not.toBe(id);
    expect(newObjectId(request())).not.toBe(newObjectId(request()));
  });
});
