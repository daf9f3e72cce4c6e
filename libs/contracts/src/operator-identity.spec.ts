import { asOperator, operatorIdentity, operatorOf } from './operator-identity';
import { resolveOrderCommand } from './orders';
import { resolveP2pCommand } from './p2p';
import { resolvePayoutCommand } from './payouts';
import { validate } from './schema';

const alice = { id: '4e1f0a9b-3c2d-4b5a-8e7f-6d5c4b3a2910', name: 'Alice Martin', role: 'operator' } as const;

describe('the operator of an operator-origin command (decision 301)', () => {
  it.each([
    ['a named operator', alice],
    ['the configured OPS_TOKEN', { id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' }],
    ['a viewer', { ...alice, role: 'viewer' }],
  ])('when it is %s, then it is valid', (_, operator) => {
    expect(validate(operatorIdentity, operator, 'operator')).toEqual({ ok: true, value: operator });
  });

  it.each([
    ['no operator', undefined, 'payload.operator is required'],
    ['null', null, 'payload.operator'],
    ['a string', 'alice', 'payload.operator must be an object'],
    ['no id', { name: 'Alice', role: 'operator' }, 'payload.operator.id is required'],
    [
      'an id that is neither a UUID nor ops-token',
      { ...alice, id: 'root' },
      'payload.operator.id must be a UUID or ops-token',
    ],
    ['an empty name', { ...alice, name: '' }, 'payload.operator.name must have at least 1 characters'],
    ['a name of 101 characters', { ...alice, name: 'a'.repeat(101) }, 'payload.operator.name'],
    ['a role the backoffice has not', { ...alice, role: 'root' }, 'payload.operator.role'],
  ])('when a payload carries %s, then operatorOf says why it is not an operator', (_, operator, reason) => {
    const r = operatorOf({ orderId: 'x', operator });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(reason);
  });

  it('when a payload is not an object, then it has no operator', () => {
    expect(operatorOf(undefined)).toMatchObject({ ok: false });
    expect(operatorOf('text')).toMatchObject({ ok: false });
  });

  it('when asOperator puts an operator on a command, then operatorOf reads the same one back, without any other member of the operator', () => {
    const command = asOperator({ ...alice, tokenHash: 'not for the wire' } as typeof alice, { orderId: 'o-1' });
    expect(command).toEqual({ orderId: 'o-1', operator: alice });
    expect(operatorOf(command)).toEqual({ ok: true, operator: alice });
  });

  it.each([
    ['order.resolve', resolveOrderCommand, { orderId: alice.id, action: 'fail' }],
    ['payout.resolve', resolvePayoutCommand, { payoutId: alice.id, action: 'complete' }],
    ['p2p.resolve', resolveP2pCommand, { p2pId: alice.id, action: 'fail' }],
  ])('when a %s carries no operator, then its schema refuses it; with one, it keeps it', (_, schema, command) => {
    expect(validate(schema, command, 'payload')).toEqual({ ok: false, error: 'payload.operator is required' });
    expect(validate(schema, { ...command, operator: alice }, 'payload')).toMatchObject({
      ok: true,
      value: { operator: alice },
    });
  });
});
