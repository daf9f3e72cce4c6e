import {
  allowedOnTopic,
  commandTopic,
  LedgerOpsCommandTypes,
  operatorOf,
  serviceCommandTopics,
  setFeeCommand,
  setRateCommand,
  setSettlementCommand,
  topicContracts,
  validate,
} from './index';

const operator = { id: 'ops-token', name: 'Ops', role: 'admin' as const };
const shopId = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';

describe('ledger.ops-commands (decision 303)', () => {
  it('when the ledger takes operator commands, then they come through ledger.ops-commands only', () => {
    expect(commandTopic('ledger', 'operator')).toBe('ledger.ops-commands');
    expect(serviceCommandTopics('ledger')).toEqual(['ledger.ops-commands']);
    for (const type of Object.values(LedgerOpsCommandTypes)) {
      expect({ type, ops: allowedOnTopic(type, 'ledger.ops-commands') }).toEqual({ type, ops: true });
      expect({ type, merchant: allowedOnTopic(type, 'ledger.commands') }).toEqual({ type, merchant: false });
    }
  });

  it('when the catalogue is read, then ledger.ops-commands is published by the backoffice alone', () => {
    const c = topicContracts.find((t) => t.topic === 'ledger.ops-commands')!;
    expect(c.publishedBy).toEqual(['backoffice']);
    expect(c.consumedBy).toEqual(['ledger']);
    expect(c.messages.map((m) => m.type).sort()).toEqual(Object.values(LedgerOpsCommandTypes).sort());
  });

  it('when a fee is set with its operator, then it parses, and without one the guard finds none', () => {
    const fee = { shopId, method: 'card', currency: 'USDT-TRC20', percent: '2.5', fixed: '0.30', minimum: '1' };
    expect(validate(setFeeCommand, { ...fee, operator }, 'payload').ok).toBe(true);
    expect(operatorOf({ ...fee, operator }).ok).toBe(true);
    expect(operatorOf(fee)).toEqual({ ok: false, error: expect.stringContaining('payload.operator') });
    expect(validate(setFeeCommand, { ...fee, method: 'Card!' }, 'payload')).toEqual({
      ok: false,
      error: expect.stringContaining('payload.method'),
    });
    expect(validate(setFeeCommand, { ...fee, percent: 2.5 }, 'payload')).toEqual({
      ok: false,
      error: expect.stringContaining('payload.percent'),
    });
  });

  it('when a settlement delay or a rate is malformed, then the error names the member', () => {
    expect(validate(setSettlementCommand, { shopId, settlementDelaySeconds: -1 }, 'payload')).toEqual({
      ok: false,
      error: expect.stringContaining('payload.settlementDelaySeconds'),
    });
    const rate = { base: 'USD', quote: 'USDT-TRC20', rate: '0.998', validFrom: '2026-11-27T00:00:00.000Z' };
    expect(validate(setRateCommand, rate, 'payload').ok).toBe(true);
    expect(validate(setRateCommand, { ...rate, validFrom: '27.11.2026' }, 'payload')).toEqual({
      ok: false,
      error: expect.stringContaining('payload.validFrom'),
    });
  });
});
