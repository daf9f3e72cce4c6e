import { envelope, Envelope, parseEnvelope } from './envelope';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const AT = new Date('2026-05-13T10:00:00.000Z');

const anEnvelope = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  eventId: '5b0c9a8e-3f1d-4c2a-9d7e-1a2b3c4d5e6f',
  type: 'order.create',
  version: 1,
  occurredAt: '2026-05-13T10:00:00.000Z',
  correlationId: '0f6e8a2c-1111-4222-8333-944455556666',
  causationId: null,
  payload: { orderId: 'o-1' },
  ...overrides,
});

const without = (field: string): Record<string, unknown> => {
  const e = anEnvelope();
  delete e[field];
  return e;
};

describe('envelope', () => {
  it('when nothing but type, payload and time is given, then it gets a fresh eventId, version 1, starts its own correlation and has no cause', () => {
    const e = envelope({ type: 'order.create', payload: { a: 1 }, occurredAt: AT });
    expect(e).toEqual({
      eventId: expect.stringMatching(UUID),
      type: 'order.create',
      version: 1,
      occurredAt: '2026-05-13T10:00:00.000Z',
      correlationId: e.eventId,
      causationId: null,
      payload: { a: 1 },
    });
  });

  it('when two envelopes are made, then their eventIds differ', () => {
    const a = envelope({ type: 't', payload: {}, occurredAt: AT });
    const b = envelope({ type: 't', payload: {}, occurredAt: AT });
    expect(a.eventId).not.toBe(b.eventId);
  });

  it('when eventId, version and correlationId are given, then they are kept', () => {
    const e = envelope({ type: 't', payload: {}, occurredAt: AT, eventId: 'e-1', version: 3, correlationId: 'c-1' });
    expect(e).toMatchObject({ eventId: 'e-1', version: 3, correlationId: 'c-1', causationId: null });
  });

  it('when it is caused by another message, then it inherits that correlation and names that message as its cause', () => {
    const cause = envelope({ type: 'order.create', payload: {}, occurredAt: AT, correlationId: 'request-42' });
    const effect = envelope({ type: 'order.status_changed', payload: {}, occurredAt: AT, causedBy: cause });
    expect(effect.correlationId).toBe('request-42');
    expect(effect.causationId).toBe(cause.eventId);
    expect(effect.eventId).not.toBe(cause.eventId);
  });

  it('when it is caused by another message and a correlationId is also given, then the cause wins', () => {
    const e = envelope({
      type: 't',
      payload: {},
      occurredAt: AT,
      correlationId: 'mine',
      causedBy: { eventId: 'cause', correlationId: 'chain' },
    });
    expect(e).toMatchObject({ correlationId: 'chain', causationId: 'cause' });
  });

  it('when a made envelope is serialized and parsed, then it comes back unchanged', () => {
    const e = envelope({ type: 'order.create', payload: { amount: '1.50' }, occurredAt: AT });
    expect(parseEnvelope(JSON.stringify(e))).toEqual({ kind: 'ok', envelope: e });
    expect(parseEnvelope(Buffer.from(JSON.stringify(e)))).toEqual({ kind: 'ok', envelope: e });
  });
});

describe('parseEnvelope', () => {
  it.each([
    ['a complete envelope', anEnvelope()],
    ['a causationId', anEnvelope({ causationId: '5b0c9a8e-3f1d-4c2a-9d7e-000000000000' })],
    ['an upper-case eventId', anEnvelope({ eventId: '5B0C9A8E-3F1D-4C2A-9D7E-1A2B3C4D5E6F' })],
    ['a later version', anEnvelope({ version: 2 })],
    ['an empty payload object', anEnvelope({ payload: {} })],
    ['a correlationId that is not a UUID', anEnvelope({ correlationId: 'merchant-request-7' })],
    ['an offset timestamp', anEnvelope({ occurredAt: '2026-05-13T12:00:00+02:00' })],
  ])('when the value is %s, then it is accepted as is', (_case, value) => {
    expect(parseEnvelope(JSON.stringify(value))).toEqual({ kind: 'ok', envelope: value });
  });

  it.each([
    ['the value is missing', null, 'empty message value'],
    ['the value is not JSON', 'not json', 'value is not JSON'],
    ['the value is empty', '', 'value is not JSON'],
    ['the value is a JSON string', '"x"', 'value is not an object'],
    ['the value is JSON null', 'null', 'value is not an object'],
    ['the value is a number', '42', 'value is not an object'],
    ['eventId is missing', JSON.stringify(without('eventId')), 'eventId must be a UUID'],
    ['eventId is not a UUID', JSON.stringify(anEnvelope({ eventId: 'evt-1' })), 'eventId must be a UUID'],
    [
      'eventId is a UUID with extra text',
      JSON.stringify(anEnvelope({ eventId: '5b0c9a8e-3f1d-4c2a-9d7e-1a2b3c4d5e6fx' })),
      'eventId must be a UUID',
    ],
    ['type is missing', JSON.stringify(without('type')), 'type must be a non-empty string'],
    ['type is empty', JSON.stringify(anEnvelope({ type: '' })), 'type must be a non-empty string'],
    ['type is not a string', JSON.stringify(anEnvelope({ type: 5 })), 'type must be a non-empty string'],
    ['version is missing', JSON.stringify(without('version')), 'version must be an integer'],
    ['version is a string', JSON.stringify(anEnvelope({ version: '1' })), 'version must be an integer'],
    ['version is a fraction', JSON.stringify(anEnvelope({ version: 1.5 })), 'version must be an integer'],
    ['occurredAt is missing', JSON.stringify(without('occurredAt')), 'occurredAt must be an ISO timestamp'],
    [
      'occurredAt is not a date',
      JSON.stringify(anEnvelope({ occurredAt: 'yesterday' })),
      'occurredAt must be an ISO timestamp',
    ],
    [
      'occurredAt is a number',
      JSON.stringify(anEnvelope({ occurredAt: 1760000000000 })),
      'occurredAt must be an ISO timestamp',
    ],
    ['correlationId is missing', JSON.stringify(without('correlationId')), 'correlationId must be a string'],
    ['correlationId is a number', JSON.stringify(anEnvelope({ correlationId: 1 })), 'correlationId must be a string'],
    ['causationId is missing', JSON.stringify(without('causationId')), 'causationId must be a string or null'],
    ['causationId is a number', JSON.stringify(anEnvelope({ causationId: 1 })), 'causationId must be a string or null'],
    ['payload is missing', JSON.stringify(without('payload')), 'payload must be an object'],
    ['payload is null', JSON.stringify(anEnvelope({ payload: null })), 'payload must be an object'],
    ['payload is a string', JSON.stringify(anEnvelope({ payload: '{}' })), 'payload must be an object'],
  ])('when %s, then it is rejected with that reason', (_case, raw, reason) => {
    expect(parseEnvelope(raw)).toEqual({ kind: 'invalid', reason });
  });

  it('when the envelope is typed, then its payload reaches the handler unchanged', () => {
    const r = parseEnvelope(JSON.stringify(anEnvelope({ payload: { nested: { amount: '0.00000001' } } })));
    expect(r.kind).toBe('ok');
    if (r.kind === 'ok')
      expect((r.envelope as Envelope<{ nested: { amount: string } }>).payload.nested.amount).toBe('0.00000001');
  });
});
