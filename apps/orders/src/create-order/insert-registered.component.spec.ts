import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { OutboxItem } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase } from '@payments/testing';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { RegisteredOrderInsert } from './insert-registered';
import { OrderRepository } from '../order.repository';
import type { OrdersConfig } from '../config';
import { ORDERS_MIGRATIONS } from '../migrations';
import { ProviderDispatchRepository } from '../dispatch-attempt/provider-dispatch.repository';
import type { PaymentProvider } from '../dispatch-attempt/payment-provider';

const SCHEMA = 'orders';
const NOW = new Date('2026-11-25T00:00:00Z');

function anOrder(shopId: string, merchantOrderId: string, extra: Partial<OrderEntity> = {}): OrderEntity {
  const id = extra.id ?? randomUUID();
  return Object.assign(new OrderEntity(), {
    id,
    shopId,
    merchantOrderId,
    status: 'registered',
    statusCode: '1-01-01',
    amount: '10.99',
    originalAmount: '10.99',
    reportedAmount: null,
    currency: 'USD',
    tokenStandard: null,
    needActionReason: null,
    description: 'two cups',
    payer: { email: 'a@example.com', bankTransferData: { iban: 'x' } },
    customerId: null,
    processingDeadline: new Date(NOW.getTime() + 3_600_000),
    instrumentType: 'card',
    paymentSettings: { walletType: 'personal' },
    recipient: null,
    callbackUrl: 'https://merchant.example.com/cb',
    linkHash: `hash-${id}`, // unique, as the real one (made from the id)
    linkExpiresAt: new Date(NOW.getTime() + 600_000),
    linkUsedAt: null,
    pageLocale: 'en',
    redirectUrls: { success: 'https://merchant.example.com/ok' },
    cardToken: null,
    cardMasked: null,
    pageMethod: null,
    instructions: null,
    isCrypto: false,
    sequence: 1,
    createdAt: NOW,
    updatedAt: NOW,
    ...extra,
  } satisfies Partial<OrderEntity>);
}

/** A new order's one statement (customer and order) against PostgreSQL, as the create command runs it. */
describe('orders’ hot-path statements against PostgreSQL: a new order with its customer, the sweeper, a send’s record', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let insert: RegisteredOrderInsert;
  const customers = async (shopId: string): Promise<number> =>
    Number((await ds.query(`SELECT count(*) AS n FROM orders.customers WHERE shop_id = $1`, [shopId]))[0].n);
  const run = (order: OrderEntity, payer: { customerId?: string; email?: string; phone?: string }) =>
    ds.transaction((m) => insert.insert(m, order, payer, randomUUID()));

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [OrderEntity, PaymentAttemptEntity],
      migrations: ORDERS_MIGRATIONS,
    });
    const dispatches = new ProviderDispatchRepository(
      ds,
      { schema: SCHEMA } as OrdersConfig,
      {
        code: 'sandbox',
      } as PaymentProvider,
    );
    insert = new RegisteredOrderInsert(SCHEMA, dispatches.queue);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('when a new order is inserted, then every column reads back as the TypeORM insert it replaces wrote it, and it has a new customer', async () => {
    const shop = randomUUID();
    const order = anOrder(shop, 'm-1');
    const customerId = await run(order, { email: 'a@example.com' });
    expect(customerId).toEqual(expect.any(String));
    expect(order.customerId).toBe(customerId);
    // The same order written the way it was before (TypeORM's insert builder), beside it.
    const before = anOrder(shop, 'm-0', { customerId });
    await ds
      .createQueryBuilder()
      .insert()
      .into(OrderEntity)
      .values(before as QueryDeepPartialEntity<OrderEntity>)
      .execute();
    const read = (id: string) => ds.getRepository(OrderEntity).findOneByOrFail({ id });
    const own = ({ id: _id, merchantOrderId: _m, linkHash: _l, ...rest }: OrderEntity) => rest;
    expect(own(await read(order.id))).toEqual(own(await read(before.id)));
    expect(await customers(shop)).toBe(1);
  });

  it('when the order id or the merchant order id is taken, then nothing is inserted, no customer either', async () => {
    const shop = randomUUID();
    const first = anOrder(shop, 'm-1');
    await run(first, {});
    const retry = anOrder(shop, 'm-1', { id: first.id });
    const taken = anOrder(shop, 'm-1');
    const sameIdOtherMerchantId = anOrder(shop, 'm-2', { id: first.id });
    expect(await run(retry, {})).toBeUndefined();
    expect(await run(taken, {})).toBeUndefined();
    expect(await run(sameIdOtherMerchantId, {})).toBeUndefined();
    expect(await customers(shop)).toBe(1);
    expect((await ds.query(`SELECT count(*) AS n FROM orders.orders WHERE shop_id = $1`, [shop]))[0].n).toBe('1');
  });

  it("when orders name the same customerId, or the same e-mail and phone, then they share a customer; an anonymous payer's orders do not", async () => {
    const shop = randomUUID();
    const byId1 = await run(anOrder(shop, 'a'), { customerId: 'c-42', email: 'a@example.com' });
    const byId2 = await run(anOrder(shop, 'b'), { customerId: 'c-42', phone: '+998900000001' });
    const byContact1 = await run(anOrder(shop, 'c'), { email: 'B@example.com', phone: '+998900000002' });
    const byContact2 = await run(anOrder(shop, 'd'), { email: 'b@example.com', phone: '+998900000002' });
    const anonymous1 = await run(anOrder(shop, 'e'), { email: 'b@example.com' });
    const anonymous2 = await run(anOrder(shop, 'f'), {});
    expect(byId2).toBe(byId1);
    expect(byContact2).toBe(byContact1);
    expect(new Set([byId1, byContact1, anonymous1, anonymous2]).size).toBe(4);
    const otherShop = await run(anOrder(randomUUID(), 'a'), { customerId: 'c-42' });
    expect(otherShop).not.toBe(byId1);
  });
  it('when an order is inserted with its attempt and event, then all three are written in its one statement, and a retry or a taken merchant order id writes none of them', async () => {
    const shop = randomUUID();
    const also = (order: OrderEntity, paymentId: string) => ({
      attempt: { paymentId, provider: 'sandbox', amount: order.amount, currency: order.currency, tokenStandard: null },
      events: [
        {
          topic: 'orders.events',
          key: order.id,
          envelope: { eventId: randomUUID(), type: 'order.status_changed', payload: { orderId: order.id } },
          headers: { 'x-test': '1' },
        },
      ] as unknown as OutboxItem[],
      now: NOW,
    });
    const written = async (orderId: string) => ({
      dispatches: await ds.query(
        `SELECT payment_id, provider, amount::text, currency, token_standard, status, sends, next_attempt_at FROM orders.provider_dispatches WHERE order_id = $1`,
        [orderId],
      ),
      events: await ds.query(
        `SELECT topic, key, envelope->>'type' AS type, headers FROM orders.outbox WHERE key = $1`,
        [orderId],
      ),
    });
    // One of each identity kind, outside any transaction, as the create command runs it.
    const payers = [{ customerId: 'c-1' }, { email: 'x@example.com', phone: '+998900000009' }, {}];
    const inserted: OrderEntity[] = [];
    for (const [i, payer] of payers.entries()) {
      const order = anOrder(shop, `w-${i}`, { linkHash: null });
      inserted.push(order);
      expect(await insert.insert(ds.manager, order, payer, randomUUID(), also(order, `pay_w${i}`))).toEqual(
        expect.any(String),
      );
      expect(await written(order.id)).toEqual({
        dispatches: [
          {
            payment_id: `pay_w${i}`,
            provider: 'sandbox',
            amount: '10.990000000000000000',
            currency: 'USD',
            token_standard: null,
            status: 'pending',
            sends: 0,
            next_attempt_at: NOW,
          },
        ],
        events: [{ topic: 'orders.events', key: order.id, type: 'order.status_changed', headers: { 'x-test': '1' } }],
      });
    }
    const retry = anOrder(shop, 'w-9', { id: inserted[0].id, linkHash: null });
    const taken = anOrder(shop, 'w-0', { linkHash: null });
    expect(await insert.insert(ds.manager, retry, {}, randomUUID(), also(retry, 'pay_retry'))).toBeUndefined();
    expect(await insert.insert(ds.manager, taken, {}, randomUUID(), also(taken, 'pay_taken'))).toBeUndefined();
    expect(await written(taken.id)).toEqual({ dispatches: [], events: [] });
    const strays = await ds.query(
      `SELECT payment_id FROM orders.provider_dispatches WHERE payment_id IN ('pay_retry', 'pay_taken')`,
    );
    expect(strays).toEqual([]);
    // An order that waits for its payer: its event and no attempt.
    const hosted = anOrder(shop, 'w-hosted');
    const { attempt: _none, ...eventOnly } = also(hosted, 'unused');
    expect(await insert.insert(ds.manager, hosted, {}, randomUUID(), { ...eventOnly, attempt: null })).toEqual(
      expect.any(String),
    );
    expect(await written(hosted.id)).toEqual({
      dispatches: [],
      events: [{ topic: 'orders.events', key: hosted.id, type: 'order.status_changed', headers: { 'x-test': '1' } }],
    });
  });
  it('when support raised the shop’s timeout after an order computed its deadline, then the sweeper waits for the raised one', async () => {
    const shop = randomUUID();
    const order = anOrder(shop, 'late-settings', { processingDeadline: new Date(NOW.getTime() + 600_000) });
    await run(order, {});
    const settings = (defaultSeconds: number) =>
      JSON.stringify({ processingTimeout: { defaultSeconds, byPaymentSetting: { card: defaultSeconds * 2 } } });
    await ds.query(
      `INSERT INTO orders.shop_settings (shop_id, version, settings, updated_at) VALUES ($1, 2, $2::jsonb, now())`,
      [shop, settings(1800)],
    );
    const repo = new OrderRepository({ schema: SCHEMA } as OrdersConfig);
    const expired = async (ms: number) =>
      (await ds.transaction((m) => repo.claimExpired(m, new Date(NOW.getTime() + ms), 100)))
        .filter((o) => o.shopId === shop)
        .map((o) => o.id);
    // Stored deadline +10 min; the current settings give a card order 3600 s.
    expect(await expired(600_000)).toEqual([]);
    expect(await expired(3_599_000)).toEqual([]);
    expect(await expired(3_600_000)).toEqual([order.id]);
    // Without settings for the shop the stored deadline counts.
    const other = anOrder(randomUUID(), 'no-settings', { processingDeadline: new Date(NOW.getTime() + 600_000) });
    await run(other, {});
    const due = await ds.transaction((m) => repo.claimExpired(m, new Date(NOW.getTime() + 600_000), 100));
    expect(due.map((o) => o.id)).toContain(other.id);
  });

  it('when a racing create takes the merchant order id after this statement checked it was free, then its attempt and event are not written either', async () => {
    // The path where only `FROM o` guards the attempt and the event: the NOT EXISTS check passed
    // (the other order is not committed yet), the customer is written, the order insert meets the
    // conflict and does nothing. A guard on the customer CTE instead would write both.
    const shop = randomUUID();
    const mine = anOrder(shop, 'race-1', { linkHash: null });
    const other = anOrder(shop, 'race-1', { linkHash: null });
    const runner = ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      expect(await insert.insert(runner.manager, other, {}, randomUUID())).toEqual(expect.any(String));
      const racing = insert.insert(ds.manager, mine, { email: 'r@example.com', phone: '+998900000077' }, randomUUID(), {
        attempt: {
          paymentId: 'pay_race',
          provider: 'sandbox',
          amount: mine.amount,
          currency: 'USD',
          tokenStandard: null,
        },
        events: [
          {
            topic: 'orders.events',
            key: mine.id,
            envelope: { eventId: randomUUID(), type: 'order.status_changed', payload: { orderId: mine.id } },
          },
        ] as unknown as OutboxItem[],
        now: NOW,
      });
      // Wait until the statement is blocked on the other transaction's uncommitted order.
      for (let i = 0; i < 100; i++) {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%provider_dispatches%'`,
        );
        if (n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await runner.commitTransaction();
      expect(await racing).toBeUndefined();
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await ds.query(`SELECT payment_id FROM orders.provider_dispatches WHERE payment_id = 'pay_race'`)).toEqual(
      [],
    );
    expect(await ds.query(`SELECT id FROM orders.outbox WHERE key = $1`, [mine.id])).toEqual([]);
    // The customer CTE did run (a data-modifying CTE always does): the contact customer is there.
    expect(await customers(shop)).toBe(2);
  });
  it('when the dispatcher records a send, then the claim and the order are locked in one statement, and the attempt, the transition and its event are written in one', async () => {
    const shop = randomUUID();
    const order = anOrder(shop, 'send-1', { linkHash: null });
    const event = (id: string) =>
      ({
        topic: 'orders.events',
        key: id,
        envelope: { eventId: randomUUID(), type: 'order.status_changed', payload: { orderId: id } },
      }) as unknown as OutboxItem;
    await insert.insert(ds.manager, order, {}, randomUUID(), {
      attempt: {
        paymentId: 'pay_send1',
        provider: 'sandbox',
        amount: order.amount,
        currency: 'USD',
        tokenStandard: null,
      },
      events: [event(order.id)],
      now: NOW,
    });
    const token = randomUUID();
    await ds.query(`UPDATE orders.provider_dispatches SET claim_token = $1, sends = 1 WHERE payment_id = 'pay_send1'`, [
      token,
    ]);
    const repo = new OrderRepository({ schema: SCHEMA } as OrdersConfig);
    const dispatches = new ProviderDispatchRepository(
      ds,
      { schema: SCHEMA } as OrdersConfig,
      {
        code: 'sandbox',
      } as PaymentProvider,
    );
    expect(await ds.transaction((m) => repo.lockDispatchWithOrder(m, 'pay_send1', randomUUID()))).toBeNull();

    await ds.transaction(async (m) => {
      const claim = await repo.lockDispatchWithOrder(m, 'pay_send1', token);
      expect(claim?.sends).toBe(1);
      expect(claim?.order).toMatchObject({
        id: order.id,
        status: 'registered',
        amount: '10.990000000000000000',
        sequence: 1,
      });
      const locked = claim!.order;
      Object.assign(locked, { status: 'in_progress', statusCode: '1-01-02', sequence: 2, updatedAt: NOW });
      const attempt = Object.assign(new PaymentAttemptEntity(), {
        orderId: order.id,
        paymentId: 'pay_send1',
        provider: 'sandbox',
        status: 'pending',
        amount: locked.amount,
        currency: 'USD',
        statusCode: '1-01-02',
        createdAt: NOW,
        updatedAt: NOW,
      });
      // The dispatch row ends in the same statement (decision 246), with what the dispatcher would write.
      await repo.recordSendOutcome(
        m,
        attempt,
        { order: locked, events: [event(order.id)] },
        dispatches.queue.finishCte('f', 'pay_send1', 'accepted', NOW, { providerPaymentId: 'prov-77' }),
      );
      // A second record of the same attempt (a callback was first) keeps the one there.
      await repo.recordSendOutcome(
        m,
        Object.assign(new PaymentAttemptEntity(), { ...attempt, status: 'success' }),
        null,
      );
    });
    const [row] = await ds.query(`SELECT status, status_code, sequence FROM orders.orders WHERE id = $1`, [order.id]);
    expect(row).toEqual({ status: 'in_progress', status_code: '1-01-02', sequence: 2 });
    expect(await ds.query(`SELECT status FROM orders.payment_attempts WHERE order_id = $1`, [order.id])).toEqual([
      { status: 'pending' },
    ]);
    expect((await ds.query(`SELECT count(*)::int AS n FROM orders.outbox WHERE key = $1`, [order.id]))[0].n).toBe(2);
    expect(
      await ds.query(
        `SELECT status, claim_token, provider_payment_id, updated_at FROM orders.provider_dispatches WHERE payment_id = 'pay_send1'`,
      ),
    ).toEqual([{ status: 'accepted', claim_token: null, provider_payment_id: 'prov-77', updated_at: NOW }]);
  });
});
