// node --test tools/bench/cpu.test.mjs: what a CPU delta counts when processes come and go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuDelta, cpuSnapshot } from './cpu.mjs';

/** A snapshot as cpuSnapshot makes it, from [name, pid, ms] rows. */
function snapshot(rows, byName = {}) {
  const snap = { ...byName };
  const perPid = new Map();
  for (const [name, pid, ms] of rows) {
    snap[name] = (snap[name] ?? 0) + ms;
    perPid.set(pid, [name, ms]);
  }
  Object.defineProperty(snap, 'perPid', { value: perPid, enumerable: false });
  return snap;
}

test('a backend that ended between two snapshots counts nothing, not minus its whole life', () => {
  const before = snapshot([
    ['postgres', 10, 5000],
    ['postgres', 11, 300],
    ['orders', 20, 700],
  ]);
  const after = snapshot([
    ['postgres', 11, 450],
    ['orders', 20, 900],
  ]);
  assert.deepEqual(cpuDelta(before, after), { postgres: 150, orders: 200 });
});

test('a backend that started between two snapshots counts whole', () => {
  const before = snapshot([['postgres', 11, 300]]);
  const after = snapshot([
    ['postgres', 11, 320],
    ['postgres', 12, 40],
  ]);
  assert.deepEqual(cpuDelta(before, after), { postgres: 60 });
});

test('a figure with no process of its own (the load generator) is taken by name', () => {
  const before = snapshot([['orders', 20, 100]], { 'load generator': 50 });
  const after = snapshot([['orders', 20, 130]], { 'load generator': 80 });
  assert.deepEqual(cpuDelta(before, after), { 'load generator': 30, orders: 30 });
});

test('a real snapshot keeps each process by pid', () => {
  const snap = cpuSnapshot([['self', process.pid]]);
  /** @type {Map<number, [string, number]>} */
  const perPid = /** @type {any} */ (snap).perPid;
  assert.equal(perPid.get(process.pid)?.[0], 'self');
  assert.equal(perPid.get(process.pid)?.[1], snap.self);
  assert.equal(Object.keys(snap).includes('perPid'), false);
});
