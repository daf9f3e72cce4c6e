import { paymeAuthorized } from '../payme-auth';
import { paymeCheckoutLink } from '../payme-checkout';
import { parsePaymeRequest } from '../payme-request';
import { parsePaymeKeys } from '../payme-settings';
import { decodePaymeCheckout } from './payme-checkout-link';
import { PAYME_SCENARIOS, PaymeScenarioName, PaymeStep, playPaymeScenario } from './payme-simulator';

const M = '5e730e8e0b852a417aa49ceb';
const ORDER = '0a8c0f4e-6b1d-4f7e-9a3c-2d5e8b1c7f90';
const KEY = 'payme-sim-key-123';
const NOW = 1_800_000_000_000;

describe("the Payme simulator's checkout link", () => {
  it('when a link made by paymeCheckoutLink is read, then it gives back the merchant, order, tiyin and return URL', () => {
    const link = paymeCheckoutLink({
      merchantId: M,
      orderId: ORDER,
      amount: '125000.50',
      returnUrl: 'https://shop.example/ok?a=1;b',
      base: 'http://127.0.0.1:9/payme/checkout',
    });
    expect(decodePaymeCheckout(link.split('/').pop()!)).toEqual({
      ok: true,
      value: { merchantId: M, orderId: ORDER, amount: 12_500_050, returnUrl: 'https://shop.example/ok?a=1%3Bb' },
    });
  });

  it.each([
    ['not base64', '!!!', 'the link is not base64'],
    ['no merchant', Buffer.from(`ac.order_id=${ORDER};a=100`).toString('base64'), 'm must be'],
    ['no order', Buffer.from(`m=${M};a=100`).toString('base64'), 'ac.order_id must be'],
    ['an amount in sums', Buffer.from(`m=${M};ac.order_id=${ORDER};a=1.5`).toString('base64'), 'a must be'],
    [
      'an amount past the safe integers',
      Buffer.from(`m=${M};ac.order_id=${ORDER};a=9007199254740993`).toString('base64'),
      'a must be',
    ],
  ])('when the link is %s, then the error names it', (_c, encoded, error) => {
    const r = decodePaymeCheckout(encoded);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(error);
  });
});

describe("the simulator's PAYME_KEYS", () => {
  it('when a key is too short or a merchant id is not one, then the error names the entry, never the key', () => {
    expect(parsePaymeKeys(JSON.stringify({ [M]: 'short' }))).toEqual({
      ok: false,
      error: `${M} must be at least 8 characters`,
    });
    const r = parsePaymeKeys(JSON.stringify({ nope: 'a-long-secret-key' }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).not.toContain('a-long-secret-key');
    expect(parsePaymeKeys(JSON.stringify({ [M]: KEY }))).toEqual({ ok: true, value: { [M]: KEY } });
  });
});

/**
 * Plays a scenario against a stand-in cashbox that answers from a script, and records what was
 * sent: the simulator's own behaviour (what it sends, in which order, where it stops).
 */
async function play(
  name: PaymeScenarioName,
  answers: (method: string) => Record<string, unknown>,
  transactionId?: string,
) {
  const sent: { method: string; body: string; authorized: boolean }[] = [];
  let n = 0;
  const steps = await playPaymeScenario(
    name,
    { merchantId: M, merchantKey: KEY, orderId: ORDER, amount: 15_000_000, transactionId },
    async (method, body, authorization): Promise<PaymeStep> => {
      sent.push({ method, body, authorized: paymeAuthorized(authorization, KEY) });
      return { method, request: body, httpStatus: 200, answer: answers(method) };
    },
    () => `${String(++n).padStart(24, '0')}`,
    () => NOW,
  );
  return { sent, steps };
}
const ok = () => ({ result: { state: 1 } });

describe('the Payme simulator plays what Payme sends', () => {
  it('when it pays, then Check, Create and Perform go out as valid JSON-RPC with the key, tiyin and time in ms', async () => {
    const { sent } = await play('pay', ok);
    expect(sent.map((s) => s.method)).toEqual(['CheckPerformTransaction', 'CreateTransaction', 'PerformTransaction']);
    expect(sent.every((s) => s.authorized)).toBe(true);
    const calls = sent.map((s) => parsePaymeRequest(s.body));
    expect(calls.map((c) => c.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(calls[1]).toMatchObject({
      call: { params: { id: '000000000000000000000001', time: NOW, amount: 15_000_000, account: { order_id: ORDER } } },
    });
    expect(calls[2]).toMatchObject({ call: { params: { id: '000000000000000000000001' } } });
  });

  it('when the shop answers an error, then Payme stops there', async () => {
    const { sent, steps } = await play('pay', (m) =>
      m === 'CheckPerformTransaction' ? { error: { code: -31050 } } : ok(),
    );
    expect(sent).toHaveLength(1);
    expect(steps[0].answer).toEqual({ error: { code: -31050 } });
  });

  it.each([
    ['wrong_key', (s: { authorized: boolean }[]) => s[0].authorized === false],
    ['wrong_amount', (s: { body: string }[]) => JSON.parse(s[0].body).params.amount === 15_000_001],
    ['unknown_order', (s: { body: string }[]) => JSON.parse(s[0].body).params.account.order_id !== ORDER],
    ['not_json', (s: { body: string }[]) => parsePaymeRequest(s[0].body).kind === 'error'],
    ['malformed', (s: { body: string }[]) => parsePaymeRequest(s[0].body).kind === 'error'],
  ] as const)('when it plays %s, then the request is what provokes it', async (name, provokes) => {
    const { sent } = await play(name, ok);
    expect(provokes(sent as never)).toBe(true);
  });

  it('when it refunds, then the transaction named is cancelled with reason 5', async () => {
    const { sent } = await play('refund', ok, 'ab12');
    expect(sent.map((s) => s.method)).toEqual(['CancelTransaction']);
    expect(JSON.parse(sent[0].body).params).toEqual({ id: 'ab12', reason: 5 });
  });

  it('every scenario has a description and plays', async () => {
    for (const name of Object.keys(PAYME_SCENARIOS) as PaymeScenarioName[])
      expect((await play(name, ok)).sent.length).toBeGreaterThan(0);
  });
});
