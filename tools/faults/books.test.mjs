// node --test tools/faults/: the books check must see a credit lost or doubled, a hold left open and
// a balance off by one minor unit when there is one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { booksHold, decimal, judgeBooks, units } from './books.mjs';
import { newJournal } from './reconcile.mjs';

/** A paid order o1 (10.99), the funding order f (100.99) refunded 1.00, a completed payout p1 (25.99) and one in flight p2. */
const journal = () => {
  const j = newJournal();
  j.order.set('m1', 'o1');
  j.order.set('mf', 'f');
  j.amounts.set('f', '100.99');
  j.refunds.set('f', ['1.00']);
  j.payout.set('mp1', 'p1');
  j.payout.set('mp2', 'p2');
  return j;
};
const orders = new Map([
  ['o1', 'completed'],
  ['f', 'partially_refunded'],
]);
const payouts = new Map([
  ['p1', 'completed'],
  ['p2', 'in_progress'],
]);
/** A transaction of `kind` for `source`; `at`: when it was booked (ms), where a test needs it. */
const tx = (id, kind, source, at = /** @type {number | undefined} */ (undefined)) => ({
  id,
  kind,
  source_id: source,
  settled_credits: null,
  at,
});
/** A settlement of several credits at once (decision 351): its own id as source, the credits listed. */
const settlement = (id, credits) => ({ id, kind: 'settlement', source_id: id, settled_credits: credits });
/** The ledger as it must be: 10.99 + 100.99 - 1.00 - 25.99 - 25.99 available, 25.99 reserved. */
const sound = () => ({
  accounts: [
    { kind: 'available', currency: 'USD', balance: '59.000000000000000000' },
    { kind: 'pending', currency: 'USD', balance: '0.000000000000000000' },
    { kind: 'reserved', currency: 'USD', balance: '25.990000000000000000' },
  ],
  transactions: [
    tx('c1', 'order_completed', 'o1'),
    tx('cf', 'order_completed', 'f'),
    settlement('s1', ['c1', 'cf']),
    tx('rr', 'refund_reserved', 'f'),
    tx('rb', 'order_refunded', 'f'),
    tx('h1', 'payout_reserved', 'p1'),
    tx('q1', 'payout_posted', 'p1'),
    tx('h2', 'payout_reserved', 'p2'),
  ],
  holds: [
    { payout_id: 'p1', status: 'posted' },
    { payout_id: 'p2', status: 'held' },
  ],
  refundHolds: [{ refund_id: 'r1', order_id: 'f', status: 'posted' }],
  /** @type {{ check: string, subject: string, detail: string }[]} */
  findings: [],
});

test('when every posting is there once and the balances are what the load implies, then the books hold', () => {
  const b = judgeBooks({ journal: journal(), orders, payouts, ledger: sound() });
  assert.deepEqual(b.problems, []);
  assert.equal(booksHold(b), true);
  assert.deepEqual(b.expected, { available: '59', pending: '0', reserved: '25.99', suspense: '0', receivable: '0' });
});

test("when a paid order's credit is missing, then it is lost and the balance is off", () => {
  const ledger = sound();
  ledger.transactions = ledger.transactions
    .filter((t) => t.id !== 'c1')
    .map((t) => (t.id === 's1' ? settlement('s1', ['cf']) : t));
  ledger.accounts[0].balance = '48.01';
  const b = judgeBooks({ journal: journal(), orders, payouts, ledger });
  assert.equal(b.lost, 1);
  assert.equal(booksHold(b), false);
});

test('when a payout was posted twice or a credit settled twice, then they are doubled', () => {
  const ledger = sound();
  ledger.transactions.push(tx('q2', 'payout_posted', 'p1'), tx('s2', 'settlement', 'c1'));
  const b = judgeBooks({ journal: journal(), orders, payouts, ledger });
  assert.equal(b.doubled, 2);
  assert.equal(booksHold(b), false);
});

test('when a credit is in two settlements, or one settlement before decision 351 and one after, then it is doubled', () => {
  for (const again of [settlement('s2', ['c1']), tx('s2', 'settlement', 'c1')]) {
    const ledger = sound();
    ledger.transactions.push(again);
    const b = judgeBooks({ journal: journal(), orders, payouts, ledger });
    assert.deepEqual(b.problems, ['doubled: settlement of c1 (the credit of order o1): 2, should be 1']);
    assert.equal(b.doubled, 1);
  }
});

test('when a settlement lists one credit and not the other, then the other is lost', () => {
  const ledger = sound();
  ledger.transactions = ledger.transactions.map((t) => (t.id === 's1' ? settlement('s1', ['c1']) : t));
  const b = judgeBooks({ journal: journal(), orders, payouts, ledger });
  assert.deepEqual(b.problems, ['lost: settlement of cf (the credit of order f): 0 of 1']);
});

test('when a final payout keeps its hold open, or a hold has no payout, then it is lost', () => {
  const ledger = sound();
  ledger.holds = [
    { payout_id: 'p1', status: 'held' },
    { payout_id: 'p2', status: 'held' },
    { payout_id: 'px', status: 'held' },
  ];
  const b = judgeBooks({ journal: journal(), orders, payouts, ledger });
  assert.equal(b.lost, 2);
});

test('when a payout was held again after an orphan sweep (decision 355), then each earlier generation is reserved and voided once', () => {
  const again = () => {
    const ledger = sound();
    ledger.holds = [
      { payout_id: 'p1', status: 'posted', generation: 2 },
      { payout_id: 'p2', status: 'held' },
    ];
    ledger.transactions.push(tx('h1a', 'payout_reserved', 'p1'), tx('v1', 'payout_voided', 'p1'));
    return ledger;
  };
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: again() }).problems, []);
  const noVoid = again();
  noVoid.transactions = noVoid.transactions.filter((t) => t.id !== 'v1');
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: noVoid }).problems, [
    'lost: payout_voided of p1 (completed): 0 of 1',
  ]);
  const thrice = again();
  thrice.transactions.push(tx('h1b', 'payout_reserved', 'p1'));
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: thrice }).problems, [
    'doubled: payout_reserved of p1: 3, should be 2',
  ]);
});

test('when a payout completed after the orphan sweep voided its hold (decision 355), then that void is not doubled; one sooner, or a second, is', () => {
  const BOUND = 900_000;
  /** p1 reserved at 0, voided at `voidAt` (ms), then posted. */
  const voided = (voidAt) => {
    const ledger = sound();
    ledger.transactions = ledger.transactions.map((t) => (t.id === 'h1' ? tx('h1', 'payout_reserved', 'p1', 0) : t));
    ledger.transactions.push(tx('v1', 'payout_voided', 'p1', voidAt));
    return ledger;
  };
  const judge = (ledger, p = payouts) => judgeBooks({ journal: journal(), orders, payouts: p, ledger }).problems;
  assert.deepEqual(judge(voided(BOUND + 60_000)), []);
  // A void seconds after the reservation is no sweep's (a release, a bug): doubled.
  assert.deepEqual(judge(voided(5_000)), ['doubled: payout_voided of p1 (completed): 1, should be 0']);
  const twice = voided(BOUND + 60_000);
  twice.transactions.push(tx('v2', 'payout_voided', 'p1', BOUND + 61_000));
  assert.deepEqual(judge(twice), ['doubled: payout_voided of p1 (completed): 2, should be 0']);
  // A failed payout's hold is voided once: a second void is doubled, however late.
  const failed = voided(BOUND + 60_000);
  failed.transactions = failed.transactions.filter((t) => t.id !== 'q1');
  failed.transactions.push(tx('v2', 'payout_voided', 'p1', BOUND + 61_000));
  failed.holds = [
    { payout_id: 'p1', status: 'voided' },
    { payout_id: 'p2', status: 'held' },
  ];
  failed.accounts[0].balance = '84.990000000000000000';
  assert.deepEqual(judge(failed, new Map([...payouts, ['p1', 'failed']])), [
    'doubled: payout_voided of p1 (failed): 2, should be 1',
  ]);
});

test("when a refund's hold was held again, then its order has one more refund_reserved and one refund_voided; a third is doubled, a missing void lost", () => {
  const again = sound();
  again.refundHolds = [{ refund_id: 'r1', order_id: 'f', status: 'posted', generation: 2 }];
  again.transactions.push(tx('rr0', 'refund_reserved', 'f'), tx('rv0', 'refund_voided', 'f'));
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: again }).problems, []);
  again.transactions.push(tx('rr2', 'refund_reserved', 'f'));
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: again }).problems, [
    'doubled: refund_reserved of f: 3, should be 2',
  ]);
  const noVoid = sound();
  noVoid.refundHolds = [{ refund_id: 'r1', order_id: 'f', status: 'posted', generation: 2 }];
  noVoid.transactions.push(tx('rr0', 'refund_reserved', 'f'));
  assert.deepEqual(judgeBooks({ journal: journal(), orders, payouts, ledger: noVoid }).problems, [
    'lost: refund_voided of f: 0 of 1',
  ]);
});

test('when a balance is off by one minor unit, or an invariant breaks, then the books do not hold', () => {
  const ledger = sound();
  ledger.accounts[0].balance = '59.01';
  assert.equal(booksHold(judgeBooks({ journal: journal(), orders, payouts, ledger })), false);
  const broken = sound();
  broken.findings = [{ check: 'transaction_unbalanced', subject: 'x', detail: 'postings in USD sum to 1' }];
  assert.equal(booksHold(judgeBooks({ journal: journal(), orders, payouts, ledger: broken })), false);
});

test('amounts are compared exactly, to 10^-18', () => {
  assert.equal(decimal(units('0.000000000000000001') + units('10.99')), '10.990000000000000001');
  assert.equal(decimal(units('-1.50')), '-1.5');
});
