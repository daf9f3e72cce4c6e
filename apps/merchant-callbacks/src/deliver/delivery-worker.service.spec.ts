import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { KeyRing, sealShopSecret } from '@payments/card-vault';
import type { QueueWorker } from '@payments/messaging';
import { MerchantCallbacksConfig } from '../tokens';
import { DeliveryWorker } from './delivery-worker.service';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryRepository } from './delivery.repository';

const NOW = new Date('2026-11-24T12:00:00Z');

/** A claimed delivery of a shop whose settings have not arrived: no HTTP call, straight to its record. */
function aClaimedDelivery(): ClaimedDelivery {
  return {
    id: 'd1',
    eventId: 'e1',
    shopId: 's1',
    objectType: 'order',
    objectId: 'o1',
    sequence: 1,
    body: '{}',
    urlOverride: null,
    attempts: 0,
    windowStartedAt: NOW,
    shop: { kind: 'unknown' },
  };
}

const CONFIG = {
  httpTimeoutMs: 1000,
  allowInsecureTargets: true,
  databaseUrl: 'postgres://unused',
  concurrency: 4,
  perShopConcurrency: 4,
  pollIntervalMs: 1000,
  retry: { windowMs: 60_000 },
} as unknown as MerchantCallbacksConfig;

/** The worker's failure paths around the claim, with the repository faked. */
describe('the delivery worker', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'warn', 'error']));

  it('when setting stale heads again fails at a claim, then the deliveries claimed with them are still started', async () => {
    const claimed = aClaimedDelivery();
    const recorded: DeliveryOutcome[] = [];
    const repository = {
      work: { t: { channel: 'test_deliveries' } },
      claimDue: jest.fn(async () => ({ claimed: [claimed], stale: [{ objectType: 'order', objectId: 'o2' }] })),
      repairHeads: jest.fn(async () => {
        throw new Error('Connection terminated unexpectedly');
      }),
      recordOutcomes: jest.fn(async (batch: readonly DeliveryOutcome[]) => {
        recorded.push(...batch);
        return new Set(batch.map((o) => o.id));
      }),
    };
    const worker = new DeliveryWorker(repository as unknown as DeliveryRepository, { now: () => NOW }, CONFIG);

    const started = await (worker as unknown as { worker: QueueWorker<ClaimedDelivery> }).worker.workDue();

    expect(started).toBe(1);
    expect(repository.repairHeads).toHaveBeenCalledWith([{ objectType: 'order', objectId: 'o2' }]);
    // The shop is unknown: the delivery waits for its settings, recorded as such.
    expect(recorded.map((o) => [o.id, o.status, o.error])).toEqual([
      ['d1', 'pending', 'waiting for the shop settings'],
    ]);
    await worker.beforeApplicationShutdown();
  });
  it('when a callback reaches the merchant, then its line is debug; when the merchant answers 503, then it is logged for operators', async () => {
    const keys = new KeyRing([{ id: 'k1', key: randomBytes(32) }]);
    const answers = [200, 503];
    const merchant = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answers.shift() ?? 500).end());
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/cb`;
    const known = (id: string): ClaimedDelivery => ({
      ...aClaimedDelivery(),
      id,
      shop: {
        kind: 'known',
        callbackUrl: url,
        callbackSecret: sealShopSecret(keys, 's1', 'shop-secret'),
        previousCallbackSecret: null,
        previousCallbackSecretExpiresAt: null,
      },
    });
    const next = [known('d-ok'), known('d-503')];
    const repository = {
      work: { t: { channel: 'test_deliveries_logs' } },
      claimDue: jest.fn(async () => {
        const claimed = next.splice(0, 1);
        return { claimed, stale: [] };
      }),
      repairHeads: jest.fn(),
      recordOutcomes: jest.fn(async (batch: readonly DeliveryOutcome[]) => new Set(batch.map((o) => o.id))),
    };
    const worker = new DeliveryWorker(repository as unknown as DeliveryRepository, { now: () => NOW }, {
      ...CONFIG,
      httpTimeoutMs: 10_000,
      secretKeys: keys,
    } as MerchantCallbacksConfig);
    const logger = (worker as unknown as { logger: Logger }).logger;
    const debug = jest.spyOn(logger, 'debug');
    const log = jest.spyOn(logger, 'log');
    const queue = (worker as unknown as { worker: QueueWorker<ClaimedDelivery> }).worker;
    try {
      for (const id of ['d-ok', 'd-503']) {
        await queue.workDue();
        const lines = () => [...debug.mock.calls, ...log.mock.calls].map(([m]) => String(m));
        const until = Date.now() + 10_000;
        while (!lines().some((m) => m.startsWith(`delivery ${id} `)) && Date.now() < until)
          await new Promise((r) => setTimeout(r, 5));
      }
      expect(debug.mock.calls.map(([m]) => String(m))).toEqual([
        expect.stringMatching(/^delivery d-ok \(o1 #1\) to http:\/\/127\.0\.0\.1:\d+: delivered \(HTTP 200/),
      ]);
      expect(log.mock.calls.map(([m]) => String(m))).toEqual([
        expect.stringMatching(/^delivery d-503 \(o1 #1\) to http:\/\/127\.0\.0\.1:\d+: attempt 1 failed \(HTTP 503\)/),
      ]);
    } finally {
      await worker.beforeApplicationShutdown();
      await new Promise((r) => merchant.close(r));
    }
  });
  it('when a call has ended and its outcome is still being recorded, then claims no longer count it against its shop, and count it again never after', async () => {
    const claimed = aClaimedDelivery();
    let commit: () => void = () => undefined;
    const settlingAtClaim: string[][] = [];
    const repository = {
      work: { t: { channel: 'test_deliveries_settling' } },
      claimDue: jest.fn(async (...args: unknown[]) => {
        settlingAtClaim.push((args[6] as { id: string }[]).map((d) => d.id));
        return { claimed: settlingAtClaim.length === 1 ? [claimed] : [], stale: [] };
      }),
      repairHeads: jest.fn(),
      recordOutcomes: jest.fn(
        (batch: readonly DeliveryOutcome[]) =>
          new Promise<Set<string>>((resolve) => (commit = () => resolve(new Set(batch.map((o) => o.id))))),
      ),
    };
    const worker = new DeliveryWorker(repository as unknown as DeliveryRepository, { now: () => NOW }, CONFIG);
    const queue = (worker as unknown as { worker: QueueWorker<ClaimedDelivery> }).worker;

    const done = queue.workDue();
    while (repository.recordOutcomes.mock.calls.length === 0) await new Promise((r) => setImmediate(r));
    await queue.workDue();
    commit();
    await done;
    await queue.workDue();

    expect(settlingAtClaim).toEqual([[], ['d1'], []]);
    await worker.beforeApplicationShutdown();
  });
});
