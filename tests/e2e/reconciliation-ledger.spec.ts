import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { http } from '@payments/testing';
import { formatReport } from '../../apps/backoffice/src/reconciliation/reconcile';
import { reconciliationFixture } from '../support/reconciliation';
import { TestStack } from '../support/stack';

/**
 * Decisions 306 and 307: the reconciliation's ledger findings over the services' real schemas
 * (migrated by the running services), each seeded with SQL and seen in the report and the metric.
 */
describe('reconciliation: the ledger against orders and payouts, and its own books', () => {
  const f = reconciliationFixture();
  const { shopId, run, breachesOf, aConsistentOrder, anUncreditedOrder, aLedgerTransaction } = f;
  let stack: TestStack;
  let db: Pool;
  beforeAll(() => {
    ({ stack, db } = f);
  });

  it('when a credit waits for a rate, an order has no credit, a refund no debit, a final payout an open hold, or a posting is corrupted, then each is a ledger finding', async () => {
    // A credit in suspense for an hour, past the grace period: an operator must set the rate.
    const waiting = randomUUID();
    const credit = await aLedgerTransaction('order_completed', waiting, '50.00', 'awaiting_rate');
    await db.query(
      `INSERT INTO ledger.awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at)
       VALUES ($1, $2, $3, 'EUR', 'USDT-TRC20', 50, now() - interval '1 hour')`,
      [credit, shopId, waiting],
    );
    const uncredited = await anUncreditedOrder('12.00');
    const undebited = await aConsistentOrder('20.00', 'partially_refunded');
    await db.query(
      `INSERT INTO orders.refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, 5, 'USD', now() - interval '30 minutes')`,
      [randomUUID(), undebited],
    );
    const payout = randomUUID();
    await db.query(
      `INSERT INTO payouts.payouts (id, shop_id, merchant_payout_id, method, provider, status, amount, currency, payee, sequence, created_at, updated_at)
       VALUES ($1, $2, $3, 'card_payout', 'sandbox', 'completed', 10, 'USD', '{}', 3, now() - interval '1 hour', now() - interval '1 hour')`,
      [payout, shopId, `p-${payout}`],
    );
    await db.query(
      `INSERT INTO ledger.holds (payout_id, shop_id, provider, currency, amount, fee, status, created_at)
       VALUES ($1, $2, 'sandbox', 'USD', 10, 0, 'held', now() - interval '1 hour')`,
      [payout, shopId],
    );
    // A posting no code path can write (the ledger's trigger refuses it): written around the triggers.
    const corrupted = await aLedgerTransaction('order_completed', randomUUID(), '1.00');
    const client = await db.connect();
    try {
      await client.query(
        `INSERT INTO ledger.accounts (key, owner, currency) VALUES ('fee_revenue:XTS', 'fee_revenue', 'XTS') ON CONFLICT DO NOTHING`,
      );
      await client.query(`SET session_replication_role = replica`);
      await client.query(
        `INSERT INTO ledger.postings (transaction_id, account_key, currency, amount) VALUES ($1, 'fee_revenue:XTS', 'XTS', 1)`,
        [corrupted],
      );
    } finally {
      await client.query(`RESET session_replication_role`);
      client.release();
    }

    const result = await run();
    expect(breachesOf(result, 'ledger_awaiting_rate')).toEqual([
      {
        invariant: 'ledger_awaiting_rate',
        subject: `ledger.transactions ${credit}`,
        detail: `50 EUR of order ${waiting} (shop ${shopId}) waits in suspense for a EUR/USDT-TRC20 rate: set one (POST /ops/v1/rates) and the ledger converts it`,
        since: expect.any(Date),
      },
    ]);
    expect(breachesOf(result, 'ledger_order_credited').map((b) => b.subject)).toContain(`orders.orders ${uncredited}`);
    expect(
      breachesOf(result, 'ledger_refund_debited').filter((b) => b.subject === `orders.orders ${undebited}`),
    ).toEqual([
      expect.objectContaining({
        subject: `orders.orders ${undebited}`,
        detail: '1 refund(s) add up to 5, the ledger debited 0 for them',
      }),
    ]);
    expect(breachesOf(result, 'ledger_payout_hold_finished')).toEqual([
      expect.objectContaining({
        subject: `payouts.payouts ${payout}`,
        detail: 'payout is completed but its ledger hold is held',
      }),
    ]);
    expect(breachesOf(result, 'ledger_transaction_unbalanced')).toEqual([
      expect.objectContaining({
        subject: `ledger transaction ${corrupted}`,
        detail: 'order_completed: postings in XTS sum to 1.000000000000000000, not zero',
      }),
    ]);
    expect(breachesOf(result, 'ledger_balance_differs_from_postings').map((b) => b.subject)).toEqual([
      'ledger account fee_revenue:XTS',
    ]);
    // npm run reconcile's report lists them, and Prometheus reads them on the metric.
    expect(formatReport(result)).toMatch(
      /BREACH ledger_awaiting_rate +\d+ credits awaiting a rate checked, 1 breach\(es\)/,
    );
    const metrics = await http('GET', `${stack.backoffice!.url}/metrics`);
    expect(metrics.text).toMatch(/payments_reconciliation_breaches\{invariant="ledger_awaiting_rate"\} 1\b/);
  });

  it('when an order has a refund older than the look-back and a new one, then all of its refunds are compared with all the ledger debited', async () => {
    const order = await aConsistentOrder('30.00', 'partially_refunded');
    for (const [amount, age] of [
      ['7', '40 days'],
      ['5', '30 minutes'],
    ]) {
      await db.query(
        `INSERT INTO orders.refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, $3, 'USD', now() - $4::interval)`,
        [randomUUID(), order, amount, age],
      );
      await aLedgerTransaction('order_refunded', order, amount);
    }
    const short = await aConsistentOrder('30.00', 'partially_refunded');
    for (const [amount, age] of [
      ['7', '40 days'],
      ['5', '30 minutes'],
    ])
      await db.query(
        `INSERT INTO orders.refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, $3, 'USD', now() - $4::interval)`,
        [randomUUID(), short, amount, age],
      );
    await aLedgerTransaction('order_refunded', short, '5');

    const breaches = breachesOf(await run(), 'ledger_refund_debited');
    expect(breaches.filter((b) => b.subject === `orders.orders ${order}`)).toEqual([]);
    expect(breaches.filter((b) => b.subject === `orders.orders ${short}`)).toEqual([
      expect.objectContaining({ detail: '2 refund(s) add up to 12, the ledger debited 5 for them' }),
    ]);
  });

  it('when a waiting credit is parked because its conversion failed, then it is a finding at once, naming the error', async () => {
    const order = randomUUID();
    const credit = await aLedgerTransaction('order_completed', order, '40.00', 'awaiting_rate');
    await db.query(
      `INSERT INTO ledger.awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at, parked, parked_at)
       VALUES ($1, $2, $3, 'EUR', 'USDT-TRC20', 40, now(), $4, now())`,
      [credit, shopId, order, `conversion failed: order ${order}: its credit's currency is no longer in the registry`],
    );
    const breaches = breachesOf(await run(), 'ledger_awaiting_rate');
    expect(breaches.filter((b) => b.subject === `ledger.transactions ${credit}`)).toEqual([
      expect.objectContaining({
        detail: `40 EUR of order ${order} (shop ${shopId}) waits in suspense, parked: conversion failed: order ${order}: its credit's currency is no longer in the registry; fix the cause, then an admin releases it (POST /ops/v1/awaiting-credits/${credit}/release, or its shop's books in the console) and the ledger converts it`,
      }),
    ]);
  });
});
