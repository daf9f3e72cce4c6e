// node --test tools/faults/: the reconciler must see a loss and a duplicate when there is one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reconcile } from './reconcile.mjs';

const journal = () => ({ orders: new Map([['m1', 'o1']]), callbacks: new Map([['o1', 'e']]) });
const row = { id: 'o1', merchant_order_id: 'm1', status: 'completed', sequence: 2 };
const d = (eventId, sequence, status) => ({ eventId, objectId: 'o1', sequence, status });

test('when every change reached the merchant once (redelivered or not), then nothing is lost or duplicated', () => {
  const r = reconcile({
    journal: journal(),
    rows: [row],
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('b', 2, 'completed')],
  });
  assert.deepEqual([r.lost, r.duplicated], [0, 0]);
});

test('when an acknowledged order is not in the database, then it is lost', () => {
  assert.equal(reconcile({ journal: journal(), rows: [], deliveries: [] }).lost, 2); // the order and its callback
});

test('when a sequence never reached the merchant, then it is lost', () => {
  assert.equal(reconcile({ journal: journal(), rows: [row], deliveries: [d('a', 1, 'registered')] }).lost, 1);
});

test('when a callback was applied twice, then the second completion is a duplicate', () => {
  const rows = [{ ...row, sequence: 3 }];
  const r = reconcile({
    journal: journal(),
    rows,
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('c', 3, 'completed')],
  });
  assert.equal(r.duplicated, 1);
});

test('when one sequence arrives under two eventIds, then it is a duplicate', () => {
  const r = reconcile({
    journal: journal(),
    rows: [row],
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('x', 2, 'completed')],
  });
  assert.equal(r.duplicated, 2); // same sequence twice, and completed twice
});

test('when a callback was answered 200 but the order is not completed, then it is lost', () => {
  const r = reconcile({
    journal: journal(),
    rows: [{ ...row, status: 'in_progress', sequence: 1 }],
    deliveries: [d('a', 1, 'registered')],
  });
  assert.equal(r.lost, 1);
});
