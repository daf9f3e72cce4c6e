import { BalanceChanged } from '@payments/contracts';
import { toBalanceBody } from './index';

const SHOP = '11111111-1111-4111-8111-111111111111';
const tx = (id: string, amount: string) => ({
  id,
  kind: 'order_completed' as const,
  source: { type: 'order' as const, id: `2222222${id.slice(7)}` },
  amount,
});
const A = tx('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', '98');
const B = tx('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', '49');
const change = (over: Partial<BalanceChanged>): BalanceChanged => ({
  shopId: SHOP,
  currency: 'USD',
  available: '0',
  pending: '147',
  reserved: '0',
  transaction: B,
  ...over,
});

describe('a balance event on the feed (decisions 314, 339)', () => {
  it("when the ledger's batch moved the balance by two transactions, then the body names both in order, the object the last", () => {
    const body = toBalanceBody('e-1', '2026-11-28T00:00:00.000Z', change({ transactions: [A, B] }));
    expect(body).toMatchObject({ objectId: B.id, pending: '147', transaction: B, transactions: [A, B] });
  });

  it('when the ledger tells what the shop owes, then the body carries it beside the other figures; a message from before decision 348 has none', () => {
    const owing = toBalanceBody('e-3', '2026-11-28T00:00:00.000Z', change({ transactions: [B], owed: '1.5' }));
    expect(owing).toMatchObject({ available: '0', pending: '147', reserved: '0', owed: '1.5' });
    expect(Object.keys(owing).slice(7, 11)).toEqual(['available', 'pending', 'reserved', 'owed']);
    expect('owed' in toBalanceBody('e-4', '2026-11-28T00:00:00.000Z', change({}))).toBe(false);
  });

  it('when a message from before decision 339 names only its transaction, then the body lists that one', () => {
    const body = toBalanceBody('e-2', '2026-11-28T00:00:00.000Z', change({}));
    expect(body.transactions).toEqual([B]);
  });
});
