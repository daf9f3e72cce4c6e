import { z } from 'zod';
import * as contracts from './index';
import {
  ContractViolation,
  createMethodCommand,
  createOrderCommand,
  createP2pCommand,
  createPayoutCommand,
  decodeListCursor,
  encodeListCursor,
  orderStatusChanged,
  parsePayload,
  providerEvent,
  replayDeliveriesCommand,
  shopCallbackSettings,
  shopSettingsSnapshot,
} from './index';

const ID = '5b0c9a8e-3f1d-4c2a-9d7e-1a2b3c4d5e6f';

const anOrder = (overrides: Record<string, unknown> = {}) => ({
  orderId: ID,
  shopId: ID,
  merchantOrderId: 'm-1',
  cost: { amount: '10.50', currency: 'UZS' },
  ...overrides,
});

const aStatusChange = (overrides: Record<string, unknown> = {}) => ({
  orderId: ID,
  shopId: ID,
  merchantOrderId: 'm-1',
  sequence: 2,
  status: 'completed',
  previousStatus: 'in_progress',
  cost: { amount: '10.50', currency: 'UZS' },
  ...overrides,
});

const aSnapshot = (overrides: Record<string, unknown> = {}) => ({
  shopId: ID,
  companyId: ID,
  version: 3,
  amountDeviation: { lowerPercent: '1', upperPercent: '2.5' },
  autoFinalizeNeedAction: true,
  processingTimeout: { defaultSeconds: 604800, byPaymentSetting: { card: 3600 } },
  useCustomerDataAsPayer: false,
  callbackUrl: 'https://merchant.example.com/cb',
  callbackSecret: 'whsec_1',
  ...overrides,
});

const violation = (schema: z.ZodType, payload: unknown, type: string): string => {
  try {
    parsePayload(schema, payload, type);
  } catch (err) {
    expect(err).toBeInstanceOf(ContractViolation);
    return (err as Error).message;
  }
  throw new Error('the payload was accepted');
};

describe('contract schemas', () => {
  it.each([
    [
      'the amount is a number',
      anOrder({ cost: { amount: 10.5, currency: 'UZS' } }),
      'payload.cost.amount must be a string',
    ],
    [
      'the amount has an exponent',
      anOrder({ cost: { amount: '1e3', currency: 'UZS' } }),
      'payload.cost.amount must be a decimal string',
    ],
    ['the order id is missing', anOrder({ orderId: undefined }), 'payload.orderId is required'],
    ['the shop id is not a UUID', anOrder({ shopId: 'shop-1' }), 'payload.shopId must be a UUID'],
    [
      'the merchant order id is empty',
      anOrder({ merchantOrderId: '' }),
      'payload.merchantOrderId must have at least 1 characters',
    ],
    [
      'the description is too long',
      anOrder({ description: 'd'.repeat(1025) }),
      'payload.description must have at most 1024 characters',
    ],
    [
      'the instrument type is unknown',
      anOrder({ instrumentType: 'cash' }),
      'payload.instrumentType must be one of card, wallet, bank_transfer, mobile_top_up',
    ],
    [
      'the wallet type is unknown',
      anOrder({ paymentSettings: { walletType: 'shared' } }),
      'payload.paymentSettings.walletType must be one of personal, company',
    ],
    ['the payer is an array', anOrder({ payer: [] }), 'payload.payer must be an object'],
    ['the cost is missing', anOrder({ cost: undefined }), 'payload.cost is required'],
  ])('when an order.create payload has %s, then the violation names the field', (_case, payload, reason) => {
    expect(violation(createOrderCommand, payload, 'order.create')).toBe(`order.create: ${reason}`);
  });

  it('when a bad member sits in an array, then the violation names its index', () => {
    const payload = {
      methodId: ID,
      shopId: ID,
      direction: 'payout',
      code: 'card-uzs',
      instrumentType: 'card',
      currencies: [{ currency: 'UZS' }, { currency: 'USD', minAmount: '-1' }],
      provider: 'sandbox',
      enabled: true,
    };
    expect(violation(createMethodCommand, payload, 'method.create')).toBe(
      'method.create: payload.currencies[1].minAmount must be a decimal string',
    );
  });

  it.each([
    [
      'a replay since a date without a time',
      replayDeliveriesCommand,
      { since: '2026-05-13' },
      'payload.since must be an ISO timestamp',
    ],
    [
      'a payout whose callback URL is not http(s)',
      createPayoutCommand,
      {
        payoutId: ID,
        shopId: ID,
        merchantPayoutId: 'p-1',
        method: 'card',
        provider: 'sandbox',
        cost: { amount: '5', currency: 'UZS' },
        payee: {},
        callbackUrl: 'ftp://merchant.example.com/cb',
      },
      'payload.callbackUrl must be an http(s) URL',
    ],
    [
      'a P2P sender with a card number instead of a card vault token',
      createP2pCommand,
      {
        p2pId: ID,
        shopId: ID,
        merchantP2pId: 'p-1',
        cost: { amount: '5', currency: 'UZS' },
        sender: { cardNumber: '8600123456789012' },
      },
      'payload.sender must not have cardNumber',
    ],
    [
      'a P2P sender whose card is not a vault token',
      createP2pCommand,
      {
        p2pId: ID,
        shopId: ID,
        merchantP2pId: 'p-1',
        cost: { amount: '5', currency: 'UZS' },
        sender: { card: { token: '8600123456789012', bin: '860012', last4: '9012', masked: '860012******9012' } },
      },
      'payload.sender.card.token must be a card vault token',
    ],
    [
      'a provider event with an unknown status',
      providerEvent,
      {
        providerCode: 'sandbox',
        providerEventId: 'e-1',
        kind: 'payment',
        reference: ID,
        status: 'done',
        amount: '1',
        currency: 'UZS',
        receivedAt: '2026-05-13T10:00:00.000Z',
      },
      'payload.status must be one of success, failed, pending',
    ],
    [
      'a status change without its previous status',
      orderStatusChanged,
      aStatusChange({ previousStatus: undefined }),
      'payload.previousStatus is required',
    ],
    [
      'a status change with a fractional sequence',
      orderStatusChanged,
      aStatusChange({ sequence: 1.5 }),
      'payload.sequence must be an integer',
    ],
    [
      'a snapshot whose timeout override is not a number',
      shopSettingsSnapshot,
      aSnapshot({ processingTimeout: { defaultSeconds: 60, byPaymentSetting: { card: '60' } } }),
      'payload.processingTimeout.byPaymentSetting.card must be an integer',
    ],
  ])('when it is %s, then the violation names the field', (_case, schema, payload, reason) => {
    expect(violation(schema, payload, 't')).toBe(`t: ${reason}`);
  });

  it('when a payload carries members the contract does not know, then they are dropped, not refused', () => {
    const cmd = parsePayload(
      createOrderCommand,
      anOrder({ extra: 1, cost: { amount: '1', currency: 'UZS', x: 2 } }),
      't',
    );
    expect(cmd).toEqual(anOrder({ cost: { amount: '1', currency: 'UZS' } }));
    expect(Object.keys(cmd)).not.toContain('extra');
  });

  it('when an optional member is null, then it is read as absent', () => {
    const change = parsePayload(orderStatusChanged, aStatusChange({ statusCode: null, callbackUrl: null }), 't');
    expect(change.statusCode).toBeUndefined();
    expect(change.callbackUrl).toBeUndefined();
  });

  it('when a status change is the first of its object, then previousStatus null is kept', () => {
    expect(parsePayload(orderStatusChanged, aStatusChange({ previousStatus: null }), 't').previousStatus).toBeNull();
  });

  it('when a shop settings snapshot is read, then only merchant-callbacks gets the secret', () => {
    expect(parsePayload(shopSettingsSnapshot, aSnapshot(), 't')).not.toHaveProperty('callbackSecret');
    expect(parsePayload(shopCallbackSettings, aSnapshot(), 't')).toEqual({
      shopId: ID,
      version: 3,
      callbackUrl: 'https://merchant.example.com/cb',
      callbackSecret: 'whsec_1',
    });
  });

  it("when a snapshot carries a shop's provider accounts, then the other consumers read their public ids, never the sealed accounts", () => {
    const read = parsePayload(
      shopSettingsSnapshot,
      aSnapshot({
        providerAccounts: { click: { serviceId: '7', merchantId: '3', secretKey: 'v1:k1:a:b:c', updatedAt: 'now' } },
        providerIds: { click: { serviceId: '7', merchantId: '3' } },
      }),
      't',
    );
    expect(read).not.toHaveProperty('providerAccounts');
    expect(read.providerIds).toEqual({ click: { serviceId: '7', merchantId: '3' } });
  });

  it('when a snapshot leaves the callback URL out, then it is null', () => {
    expect(parsePayload(shopSettingsSnapshot, aSnapshot({ callbackUrl: undefined }), 't').callbackUrl).toBeNull();
  });

  const schemas = Object.entries(contracts as Record<string, unknown>).filter(
    (e): e is [string, z.ZodType] => e[1] instanceof z.ZodType,
  );

  it('when the contracts are listed, then every payload schema is exported by name', () => {
    expect(schemas.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'createOrderCommand',
        'orderStatusChanged',
        'providerEvent',
        'envelopeSchema',
        'payoutView',
      ]),
    );
  });

  it.each(schemas)('when %s is turned into JSON Schema (for AsyncAPI), then it converts both ways', (_name, schema) => {
    for (const io of ['input', 'output'] as const) expect(() => z.toJSONSchema(schema, { io })).not.toThrow();
  });
});

describe('list cursors', () => {
  const crafted = (text: string) => Buffer.from(text).toString('base64url');
  const id = '0b7c8f1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';

  it('when a cursor is one encodeListCursor wrote, then it decodes to the same time and id', () => {
    const at = new Date('2026-11-24T23:00:00.123Z');
    expect(decodeListCursor(encodeListCursor(at, id))).toEqual({ createdAt: at, id });
  });

  it('when a cursor is crafted, then it is refused rather than handed to PostgreSQL', () => {
    for (const text of [
      `2026-11-24T23:00:00.000Z|${'-'.repeat(36)}`,
      `2026-11-24T23:00:00.000Z|${'0'.repeat(36)}`,
      `2026-11-24T23:00:00.000Z|${id.toUpperCase()}`,
      `+275760-09-13T00:00:00.000Z|${id}`,
      `-000001-01-01T00:00:00.000Z|${id}`,
      `1|${id}`,
      `2026-11-24|${id}`,
      `2026-02-31T00:00:00.000Z|${id}`,
      `2026-11-24T23:00:00.000Z|${id}|x`,
      '',
    ])
      expect({ text, decoded: decodeListCursor(crafted(text)) }).toEqual({ text, decoded: undefined });
  });
});
