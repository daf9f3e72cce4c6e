import { Logger } from '@nestjs/common';
import { envelope, ReplyTopics } from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';
import { onItsPath, refusal } from './audience-guard';

const alice = { id: '4e1f0a9b-3c2d-4b5a-8e7f-6d5c4b3a2910', name: 'Alice Martin', role: 'operator' } as const;
const PREFIX = 'p.';
const OWN = PREFIX + ReplyTopics.backoffice;
const resolve = (payload: Record<string, unknown>) =>
  envelope({ type: 'order.resolve', payload, occurredAt: new Date('2026-11-27T10:00:00Z') });
const order = { orderId: '0f6e8a2c-1111-4222-8333-944455556666', action: 'fail' };

async function refused(reason: string, outcome: string): Promise<number> {
  const values = (await PaymentsMetrics.commandsRefused.get()).values;
  return values.find((v) => v.labels.reason === reason && v.labels.outcome === outcome)?.value ?? 0;
}

describe('the audience guard on the operator path (decisions 263 and 301)', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('when an operator command carries a valid operator, then it goes to its handler', () => {
    expect(refusal('orders.ops-commands', resolve({ ...order, operator: alice }), OWN, PREFIX)).toBeUndefined();
    expect(refusal('orders.ops-commands', resolve({ ...order, operator: alice }), undefined, PREFIX)).toBeUndefined();
  });

  it.each([
    ['no operator', {}],
    ['an operator without a name', { operator: { id: alice.id, role: 'operator' } }],
    ['an operator whose id is not one', { operator: { ...alice, id: "'; DROP TABLE" } }],
  ])(
    'when an operator command carries %s and asks on the backoffice reply topic, then it is answered forbidden, counted and logged as no_operator',
    async (_, extra) => {
      const before = await refused('no_operator', 'answered');
      const r = refusal('orders.ops-commands', resolve({ ...order, ...extra }), OWN, PREFIX);
      expect(r?.answer).toMatchObject({
        ok: false,
        error: {
          code: 'forbidden',
          detail: expect.stringContaining('order.resolve is not allowed without its operator'),
        },
      });
      expect(await refused('no_operator', 'answered')).toBe(before + 1);
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('refused on orders.ops-commands (no_operator, operator path'),
      );
    },
  );

  it('when an operator command without an operator asks for no reply, then it is dropped and counted', async () => {
    const before = await refused('no_operator', 'dropped');
    expect(refusal('payouts.ops-commands', { ...resolve({}), type: 'payout.resolve' }, undefined, PREFIX)).toEqual({});
    expect(await refused('no_operator', 'dropped')).toBe(before + 1);
  });

  it('when a command without an operator asks on another audience reply topic, then it is refused for the reply topic first', () => {
    const r = refusal('orders.ops-commands', resolve(order), PREFIX + ReplyTopics.checkout, PREFIX);
    expect(r).toEqual({});
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('(wrong_reply_topic, operator path'));
  });

  it('when a merchant or payer command carries no operator, then nothing is asked of it', () => {
    const create = envelope({ type: 'order.create', payload: {}, occurredAt: new Date() });
    expect(refusal('orders.commands', create, PREFIX + ReplyTopics.gateway, PREFIX)).toBeUndefined();
    const list = envelope({ type: 'method.payment.list', payload: { shopId: alice.id }, occurredAt: new Date() });
    expect(refusal('methods.payer-commands', list, PREFIX + ReplyTopics.checkout, PREFIX)).toBeUndefined();
    // The same type on the operator path needs its operator.
    expect(refusal('methods.ops-commands', list, OWN, PREFIX)?.answer).toMatchObject({ ok: false });
  });

  it('when a batch is cut, then no message of an operator path goes to a batch handler (each is checked by refusal)', () => {
    expect(onItsPath('orders.ops-commands', 'order.resolve')).toBe(false);
    expect(onItsPath('orders.commands', 'order.create')).toBe(true);
    expect(onItsPath('orders.events', 'order.status_changed')).toBe(true);
  });
});
