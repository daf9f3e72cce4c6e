import type { ConformanceKit, ConformanceOutcome } from '@payments/providers/core';
import { ClickActions, parseComplete, parsePrepare } from '../click-request';
import { ClickTransaction, clickPaidEvent, decideComplete, decidePrepare } from '../decide';
import { clickSignatureValid } from '../sign-string';
import { clickForm } from './click-simulator';

const KEY = 'conformance-click-key';
const SHOP = 'c0000000-0000-4000-8000-00000000000c';
const NOW = new Date('2026-11-27T10:00:00Z');

/**
 * Click's Prepare and Complete for a paid order, signed as the simulator signs them, checked and
 * decided by the same functions callbacks-ingest runs; the order is payable and in sums.
 */
export const clickConformanceKit: ConformanceKit = {
  terms: { reference: 'c0000000-0000-4000-8000-00000000000b', amount: '150000.00', currency: 'UZS' },
  paid: (t, opts): ConformanceOutcome => {
    const key = opts.forged ? `${KEY}-forged` : KEY;
    const ids = { clickTransId: '424242', serviceId: '1', orderId: t.reference, amount: t.amount };
    const order = {
      kind: 'found',
      shopId: SHOP,
      amount: t.amount,
      currency: t.currency,
      status: 'registered',
    } as const;
    const prepare = parsePrepare(clickForm(ClickActions.prepare, ids, key, NOW));
    if (prepare.kind === 'invalid') return { kind: 'refused', reason: prepare.reason };
    if (!clickSignatureValid(prepare.request, KEY)) return { kind: 'refused', reason: 'sign_string (-1)' };
    const p = decidePrepare(null, order, SHOP, prepare.request);
    if (p.kind !== 'prepare') return { kind: 'refused', reason: `prepare ${p.kind}` };
    const tx: ClickTransaction = {
      clickTransId: ids.clickTransId,
      orderId: t.reference,
      amount: t.amount,
      merchantPrepareId: '1',
      state: 'prepared',
      merchantConfirmId: null,
    };
    const complete = parseComplete(clickForm(ClickActions.complete, { ...ids, prepareId: '1' }, key, NOW));
    if (complete.kind === 'invalid') return { kind: 'refused', reason: complete.reason };
    if (!clickSignatureValid(complete.request, KEY)) return { kind: 'refused', reason: 'sign_string (-1)' };
    const c = decideComplete(tx, complete.request, order, SHOP);
    return c.kind === 'complete'
      ? { kind: 'event', event: clickPaidEvent(tx) }
      : { kind: 'refused', reason: `complete ${c.kind}` };
  },
};
