import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Client } from 'pg';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { sign } from '@payments/providers/sandbox';
import { eventually, http } from '@payments/testing';
import { TEST_SANDBOX_SECRET } from './stack';

/** What is sent to the provider, and where each kind keeps its dispatch rows and its inbox. */
export type DispatchKind = 'order' | 'payout' | 'p2p';
const OWNER: Record<DispatchKind, { schema: string; column: string; sandboxQuery: string }> = {
  order: { schema: 'orders', column: 'order_id', sandboxQuery: '' },
  payout: { schema: 'payouts', column: 'payout_id', sandboxQuery: '?kind=payout' },
  p2p: { schema: 'p2p', column: 'p2p_id', sandboxQuery: '?kind=p2p' },
};

export interface DispatchRow {
  status: string;
  sends: number;
  [column: string]: any;
}

/** The provider dispatch row of an order, payout or P2P transaction: there is exactly one. */
export async function dispatchOf<T extends DispatchRow = DispatchRow>(
  db: Client,
  kind: DispatchKind,
  id: string,
): Promise<T> {
  const { schema, column } = OWNER[kind];
  const rows = (await db.query(`SELECT * FROM ${schema}.provider_dispatches WHERE ${column} = $1`, [id])).rows;
  expect(rows).toHaveLength(1);
  return rows[0];
}

/** What the sandbox acquirer knows of one attempt (requests, scenario, callbacks), or undefined. */
export async function sandboxPayment(sandboxUrl: string, kind: DispatchKind, id: string, attemptId: string) {
  const res = await http('GET', `${sandboxUrl}/payments/${id}/${attemptId}${OWNER[kind].sandboxQuery}`);
  return res.status === 200 ? res.body : undefined;
}

/**
 * Waits until the sandbox delivered `count` callbacks for one attempt, each answered 200, and the
 * owning service consumed every one of them; returns the callbacks as the sandbox sent them.
 */
export async function callbacksApplied(
  db: Client,
  sandboxUrl: string,
  kind: DispatchKind,
  id: string,
  attemptId: string,
  count: number,
): Promise<{ eventId: string; status: string; responseStatus: number; responseBody: string }[]> {
  const sent = await eventually(
    async () => {
      const p = await sandboxPayment(sandboxUrl, kind, id, attemptId);
      return p?.callbacks.length === count &&
        p.callbacks.every((c: { responseStatus?: number }) => c.responseStatus === 200)
        ? p.callbacks
        : undefined;
    },
    15000,
    `${count} callbacks delivered for ${id}`,
  );
  const eventIds = [...new Set(sent.map((c: { eventId: string }) => callbackEventId('sandbox', c.eventId)))];
  const { schema } = OWNER[kind];
  await eventually(
    async () => {
      const r = await db.query(`SELECT count(*)::int AS n FROM ${schema}.inbox WHERE event_id = ANY($1::uuid[])`, [
        eventIds,
      ]);
      return r.rows[0].n === eventIds.length ? true : undefined;
    },
    15000,
    `callbacks of ${id} consumed by ${schema}`,
  );
  return sent;
}

/** A local port nothing listens on: a provider that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What a sandbox acquirer's callback says of one attempt. */
export interface SandboxReport {
  reference: string;
  paymentId: string;
  status: 'pending' | 'success' | 'failed';
  amount: string;
  currency: string;
}

/**
 * A sandbox acquirer (`sandbox`, `sandbox-b`) reports an attempt: a callback signed as the sandbox
 * signs it, to callbacks-ingest, taken with 200. Returns the provider's event id.
 */
export async function sandboxCallback(ingestUrl: string, report: SandboxReport, provider = 'sandbox'): Promise<string> {
  const providerEventId = `evt-${randomUUID()}`;
  const raw = JSON.stringify({ eventId: providerEventId, kind: 'payment', ...report });
  const res = await http('POST', `${ingestUrl}/callbacks/${provider}`, {
    rawBody: raw,
    headers: {
      'content-type': 'application/json',
      'x-signature': sign(TEST_SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
    },
  });
  expect(res.status).toBe(200);
  return providerEventId;
}

/**
 * The sandbox provider reports the payment of an order (100.99 USD) as a success: a signed
 * callback to callbacks-ingest, taken with 200. Returns the provider's event id.
 */
export function sandboxPaid(ingestUrl: string, orderId: string): Promise<string> {
  return sandboxCallback(ingestUrl, {
    reference: orderId,
    paymentId: 'p1',
    status: 'success',
    amount: '100.99',
    currency: 'USD',
  });
}
