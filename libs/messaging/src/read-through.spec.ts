import { latestPassed } from './read-through';

const mark = (at: number, highs: Record<number, number>) => ({
  at,
  highs: new Map(Object.entries(highs).map(([p, h]) => [Number(p), BigInt(h)])),
});
const position = (committed: Record<number, number>, lows: Record<number, number> = {}) => ({
  committed: new Map(Object.entries(committed).map(([p, o]) => [Number(p), BigInt(o)])),
  lows: new Map(Object.entries(lows).map(([p, o]) => [Number(p), BigInt(o)])),
});

describe('latestPassed: the latest mark a group has committed past on every partition', () => {
  const marks = [mark(1, { 0: 5, 1: 3 }), mark(2, { 0: 8, 1: 3 }), mark(3, { 0: 9, 1: 7 })];

  it('when the group committed past every mark, then the newest is answered', () => {
    expect(latestPassed(marks, position({ 0: 9, 1: 7 }))).toBe(2);
  });

  it('when the group is a few messages behind the newest mark, then the one before it is answered', () => {
    expect(latestPassed(marks, position({ 0: 8, 1: 6 }))).toBe(1);
  });

  it('when one partition is behind every mark, then none is passed, whatever the others committed', () => {
    expect(latestPassed(marks, position({ 0: 100, 1: 2 }))).toBe(-1);
  });

  it('when the group never committed on a partition that held messages, then none is passed', () => {
    expect(latestPassed(marks, position({ 0: 9 }))).toBe(-1);
  });

  it('when a partition held nothing at a mark (high at its oldest retained), then it does not hold the mark back', () => {
    expect(latestPassed([mark(1, { 0: 0, 1: 4 })], position({ 1: 4 }))).toBe(0);
    // Retention removed what it held unread: nothing is left to read of it.
    expect(latestPassed([mark(1, { 0: 6, 1: 4 })], position({ 1: 4 }, { 0: 6 }))).toBe(0);
  });

  it('when there is no mark yet, then none is passed', () => {
    expect(latestPassed([], position({ 0: 9 }))).toBe(-1);
  });
});
