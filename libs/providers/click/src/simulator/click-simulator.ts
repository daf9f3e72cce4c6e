import { ClickActions } from '../click-request';
import { clickSignString } from '../sign-string';

/** The terms of one simulated payment: the order, its amount in sums, and the Click service of its shop. */
export interface ClickTerms {
  orderId: string;
  amount: string;
  serviceId: string;
  secretKey: string;
}

export type ClickEndpoint = 'prepare' | 'complete';
/** One request the simulator sent and what our callbacks-ingest answered (JSON, or the HTTP status when not JSON). */
export interface ClickStep {
  endpoint: ClickEndpoint;
  form: Record<string, string>;
  httpStatus: number;
  answer: Record<string, unknown> | null;
}
export type ClickSend = (endpoint: ClickEndpoint, form: Record<string, string>) => Promise<ClickStep>;

/**
 * Every rule of "Click-API – Request" and "Click-API – Error" as a scenario the sandbox plays on
 * request: each named after what it provokes. Some need the order in a state the caller arranges
 * (already_paid after pay, order_busy on an order in progress, order_cancelled on a cancelled one).
 */
export const CLICK_SCENARIOS = {
  pay: 'Prepare, then Complete with error 0: the order is paid (error 0 twice); a Prepare error ends it',
  pay_repeated: 'Prepare twice, Complete twice, same ids: the same answers, one payment',
  forged_sign: 'Prepare signed with another key: -1',
  wrong_amount: 'Prepare for 1 sum more than the order: -2',
  unknown_action: 'Prepare with action 2: -3',
  already_paid: 'Prepare with a new click_trans_id (arrange: the order is paid): -4',
  unknown_order: 'Prepare for an order id that does not exist: -5',
  unknown_transaction: 'Complete for a click_trans_id never prepared: -6',
  order_busy: 'Prepare (arrange: the order is being paid by card): -7',
  malformed: 'Prepare without sign_time: -8',
  click_failed: 'Prepare, then Complete with error -5017 (Click could not debit): -9, and -9 again',
  order_cancelled: 'Prepare (arrange: the order is cancelled): -9',
} as const;
export type ClickScenarioName = keyof typeof CLICK_SCENARIOS;

/** Click's time as it signs it: "YYYY-MM-DD HH:mm:ss". */
export function clickTime(now: Date): string {
  return now.toISOString().slice(0, 19).replace('T', ' ');
}

/** A signed Prepare or Complete form, as Click would post it. */
export function clickForm(
  action: number,
  f: { clickTransId: string; serviceId: string; orderId: string; amount: string; prepareId?: string; error?: number },
  secretKey: string,
  now: Date,
): Record<string, string> {
  const fields = {
    click_trans_id: f.clickTransId,
    service_id: f.serviceId,
    click_paydoc_id: String(Number(f.clickTransId) + 1_000_000),
    merchant_trans_id: f.orderId,
    ...(f.prepareId !== undefined ? { merchant_prepare_id: f.prepareId } : {}),
    amount: f.amount,
    action: String(action),
    error: String(f.error ?? 0),
    error_note: f.error ? 'Insufficient funds' : 'Success',
    sign_time: clickTime(now),
  };
  return { ...fields, sign_string: clickSignString(fields, secretKey) };
}

const prepareIdOf = (s: ClickStep): string => String(s.answer?.merchant_prepare_id ?? '0');

/** Plays one scenario through `send`; `nextTransId` gives Click's transaction ids. */
export async function playClickScenario(
  name: ClickScenarioName,
  t: ClickTerms,
  send: ClickSend,
  nextTransId: () => string,
  now: () => Date,
): Promise<ClickStep[]> {
  const id = nextTransId();
  const base = { clickTransId: id, serviceId: t.serviceId, orderId: t.orderId, amount: t.amount };
  const prepare = (over: Partial<typeof base> = {}, key = t.secretKey, action: number = ClickActions.prepare) =>
    send('prepare', clickForm(action, { ...base, ...over }, key, now()));
  const complete = (prepareId: string, error = 0, over: Partial<typeof base> = {}) =>
    send('complete', clickForm(ClickActions.complete, { ...base, ...over, prepareId, error }, t.secretKey, now()));
  switch (name) {
    case 'pay': {
      const p = await prepare();
      // Click completes only what the shop prepared: after a Prepare error it stops and shows it.
      if (p.answer?.error !== 0) return [p];
      return [p, await complete(prepareIdOf(p))];
    }
    case 'pay_repeated': {
      const p1 = await prepare();
      const p2 = await prepare();
      const c1 = await complete(prepareIdOf(p1));
      return [p1, p2, c1, await complete(prepareIdOf(p1))];
    }
    case 'forged_sign':
      return [await prepare({}, `${t.secretKey}-not`)];
    case 'wrong_amount':
      return [await prepare({ amount: String(Number(t.amount) + 1) })];
    case 'unknown_action':
      return [await prepare({}, t.secretKey, 2)];
    case 'unknown_order':
      return [await prepare({ orderId: '00000000-0000-4000-8000-000000000000' })];
    case 'unknown_transaction':
      return [await complete('999999999')];
    case 'malformed': {
      const form = clickForm(ClickActions.prepare, base, t.secretKey, now());
      delete form.sign_time;
      return [await send('prepare', form)];
    }
    case 'click_failed': {
      const p = await prepare();
      const c1 = await complete(prepareIdOf(p), -5017);
      return [p, c1, await complete(prepareIdOf(p), -5017)];
    }
    case 'already_paid':
    case 'order_busy':
    case 'order_cancelled':
      return [await prepare()];
    default: {
      const never: never = name;
      throw new Error(`unknown Click scenario ${String(never)}`);
    }
  }
}
