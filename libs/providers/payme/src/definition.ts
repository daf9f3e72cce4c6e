import type { ConformanceKit, ConformanceOutcome, ProviderDefinition } from '@payments/providers/core';
import { paymeAuthorization, paymeAuthorized } from './payme-auth';
import { parsePaymeRequest } from './payme-request';
import { createTransaction, paymePaidEvent, performTransaction } from './payme-transactions';
import { parsePaymeSettings } from './payme-settings';

const KEY = 'conformance-payme-key';
const NOW = Date.parse('2026-11-27T10:00:00Z');

/** Payme's CreateTransaction and PerformTransaction for a payable order, through its own checks. */
const conformance: ConformanceKit = {
  terms: { reference: 'c0000000-0000-4000-8000-00000000000d', amount: '150000.00', currency: 'UZS' },
  paid: (t, opts): ConformanceOutcome => {
    if (!paymeAuthorized(paymeAuthorization(opts.forged ? `${KEY}-forged` : KEY), KEY))
      return { kind: 'refused', reason: '-32504' };
    const amount = Math.round(Number(t.amount) * 100);
    const body = {
      id: 1,
      method: 'CreateTransaction',
      params: { id: 'pm-c', time: NOW, amount, account: { order_id: t.reference } },
    };
    const r = parsePaymeRequest(JSON.stringify(body));
    if (r.kind === 'error' || r.call.method !== 'CreateTransaction') return { kind: 'refused', reason: 'create' };
    const order = { kind: 'found', amount: t.amount, currency: t.currency, status: 'registered' } as const;
    const c = createTransaction(null, null, order, r.call.params, NOW);
    if (c.kind !== 'create') return { kind: 'refused', reason: `create ${c.kind}` };
    const p = performTransaction(c.transaction, NOW + 1000);
    return p.kind === 'write'
      ? { kind: 'event', event: paymePaidEvent(p.transaction) }
      : { kind: 'refused', reason: `perform ${p.kind}` };
  },
};

/** Payme by its Merchant API: it calls our JSON-RPC endpoint per cashbox; we never send to it. */
export const paymeProvider: ProviderDefinition = {
  code: 'payme',
  displayName: 'Payme',
  capabilities: { operations: ['payment'], instruments: ['wallet'], brands: ['humo', 'uzcard'], currencies: ['UZS'] },
  inbound: { kind: 'request-answer', paths: ['/callbacks/payme/{merchantId}'] },
  statusMap: { performed: 'success' },
  settings: { parse: parsePaymeSettings, account: { secret: 'key', unique: 'merchantId' } },
  conformance,
};
