// node --test tools/faults/: the reconciler must see a loss, a duplicate and a callback out of order when there is one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newJournal, reconcile } from './reconcile.mjs';

const journal = () => ({
  ...newJournal(),
  order: new Map([['m1', 'o1']]),
  payout: new Map(),
  p2p: new Map(),
  callbacks: new Map([['o1', 'e']]),
});
const row = { id: 'o1', merchant_id: 'm1', status: 'completed', sequence: 2 };
const rows = (orders = [row], more = {}) => ({ order: orders, payout: [], p2p: [], ...more });
/**
 * A delivery the merchant got; previousStatus left out where a test does not care.
 * @param {string} eventId @param {number} sequence @param {string} status
 * @param {string | null} [previousStatus] @param {string} [objectId]
 */
const d = (eventId, sequence, status, previousStatus = undefined, objectId = 'o1') => ({
  eventId,
  objectId,
  sequence,
  status,
  ...(previousStatus === undefined ? {} : { previousStatus }),
});

test('when every change reached the merchant once (redelivered or not), then nothing is lost or duplicated', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows(),
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('b', 2, 'completed')],
  });
  assert.deepEqual([r.lost, r.duplicated, r.misordered], [0, 0, 0]);
});

test('when an acknowledged order is not in the database, then it is lost', () => {
  assert.equal(reconcile({ journal: journal(), rows: rows([]), deliveries: [] }).lost, 2); // the order and its callback
});

test('when a sequence never reached the merchant, then it is lost', () => {
  assert.equal(reconcile({ journal: journal(), rows: rows(), deliveries: [d('a', 1, 'registered')] }).lost, 1);
});

test('when a callback was applied twice, then the second completion is a duplicate', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows([{ ...row, sequence: 3 }]),
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('c', 3, 'completed')],
  });
  assert.equal(r.duplicated, 1);
});

test('when one sequence arrives under two eventIds, then it is a duplicate', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows(),
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('x', 2, 'completed')],
  });
  assert.equal(r.duplicated, 2); // same sequence twice, and completed twice
});

test('when a callback was answered 200 but the order is not completed, then it is lost', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows([{ ...row, status: 'in_progress', sequence: 1 }]),
    deliveries: [d('a', 1, 'registered')],
  });
  assert.equal(r.lost, 1);
});

test('when an acknowledged payout or P2P transaction is missing or its change never arrived, then it is lost', () => {
  const j = {
    ...journal(),
    payout: new Map([['mp', 'p1']]),
    p2p: new Map([['mq', 'q1']]),
    callbacks: new Map([['p1', 'ep']]),
  };
  const r = reconcile({
    journal: j,
    rows: rows([row], { payout: [{ id: 'p1', merchant_id: 'mp', status: 'completed', sequence: 2 }], p2p: [] }),
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('c', 1, 'registered', null, 'p1')],
  });
  assert.equal(r.lost, 2); // p1's sequence 2, and q1 itself
  assert.ok(r.problems.some((p) => p.includes('p2p mq (q1) is not in the database')));
});

test('when two payouts carry one merchant payout id, then one is a duplicate', () => {
  const r = reconcile({
    journal: { ...journal(), payout: new Map([['mp', 'p1']]) },
    rows: rows([row], {
      payout: [
        { id: 'p1', merchant_id: 'mp', status: 'registered', sequence: 1 },
        { id: 'p2', merchant_id: 'mp', status: 'registered', sequence: 1 },
      ],
    }),
    deliveries: [d('a', 1, 'registered'), d('b', 2, 'completed'), d('c', 1, 'registered', null, 'p1')],
  });
  assert.equal(r.duplicated, 1);
});

test('when a later sequence arrives before an earlier one, then it is out of order', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows(),
    deliveries: [d('b', 2, 'completed', 'registered'), d('a', 1, 'registered', null)],
  });
  assert.deepEqual([r.lost, r.duplicated, r.misordered], [0, 0, 1]);
});

test('when an earlier sequence is delivered again after a later one, then that alone is no disorder', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows(),
    deliveries: [d('a', 1, 'registered', null), d('b', 2, 'completed', 'registered'), d('a', 1, 'registered', null)],
  });
  assert.equal(r.misordered, 0);
});

test("when a callback's previous status is not the status of the sequence before, then it is out of order", () => {
  const r = reconcile({
    journal: journal(),
    rows: rows([{ ...row, sequence: 3 }]),
    deliveries: [
      d('a', 1, 'registered', null),
      d('b', 2, 'completed', 'in_progress'),
      d('c', 3, 'in_progress', 'registered'),
    ],
  });
  assert.ok(r.misordered >= 2);
});

test('when the statuses go a way the fold never goes, then it is out of order', () => {
  const r = reconcile({
    journal: journal(),
    rows: rows([{ ...row, status: 'in_progress', sequence: 3 }]),
    deliveries: [
      d('a', 1, 'registered', null),
      d('b', 2, 'completed', 'registered'),
      d('c', 3, 'in_progress', 'completed'),
    ],
  });
  assert.equal(r.misordered, 1);
});

test('when the last callback of an object says another status than it has, then it is out of order', () => {
  const r = reconcile({
    journal: { ...journal(), callbacks: new Map() },
    rows: rows([{ ...row, status: 'failed' }]),
    deliveries: [d('a', 1, 'registered', null), d('b', 2, 'completed', 'registered')],
  });
  assert.equal(r.misordered, 1);
});
