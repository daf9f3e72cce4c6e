import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CheckoutOrderView,
  deriveLinkKey,
  linkHashOf,
  linkToken,
  MethodListView,
  OrderCommandTypes,
} from '@payments/contracts';
import { CheckoutController } from './checkout.controller';
import { CheckoutRequests } from './checkout-requests';
import { PageGate } from './page-gate';
import { CheckoutConfig } from './config';

/** The page's controller against a fake orders/methods service and vault: no Kafka, no browser. */
const orderId = '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21';
const key = deriveLinkKey(randomBytes(32));
const token = linkToken(key, 'order', orderId);

interface Sent {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function fakeReply(): { reply: FastifyReply; sent: Sent } {
  const sent: Sent = { status: 200, headers: {}, body: '' };
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    type(value: string) {
      sent.headers['content-type'] = value;
      return reply;
    },
    send(body?: string) {
      sent.body = body ?? '';
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

const req = (ip = '203.0.113.7') => ({ ip, headers: { 'accept-language': 'en' } }) as unknown as FastifyRequest;

function view(over: Partial<CheckoutOrderView> = {}): CheckoutOrderView {
  return {
    orderId,
    shopId: '5a0e0b1c-1111-4222-8333-944455556666',
    merchantOrderId: 'm-1',
    status: 'registered',
    amount: '125000.00',
    currency: 'UZS',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    linkStatus: 'live',
    redirectUrls: { success: 'https://shop.example.com/paid', failure: 'https://shop.example.com/not-paid' },
    ...over,
  };
}

type Methods = MethodListView['methods'];
const method = (over: Partial<Methods[number]>): Methods[number] => ({
  id: 'm',
  code: 'card',
  instrumentType: 'card',
  cardBrands: ['visa', 'mastercard', 'uzcard', 'humo'],
  dataEntryMode: 'card_form',
  currencies: [{ currency: 'UZS' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...(over as object),
});

function setup(
  opts: {
    order?: () => CheckoutOrderView;
    pay?: () => { ok: true; result: CheckoutOrderView } | { ok: false; error: { code: string; message: string } };
    methods?: Methods;
    tokenize?: () => Promise<unknown>;
  } = {},
) {
  const client = {
    request: jest.fn(async (_topic: string, _key: string, type: string, payload: { linkHash?: string }) => {
      if (type === OrderCommandTypes.getForCheckout)
        return payload.linkHash === linkHashOf(token)
          ? { ok: true, result: (opts.order ?? view)() }
          : { ok: false, error: { code: 'notFound', message: 'no such link' } };
      if (type === OrderCommandTypes.payHosted) return (opts.pay ?? (() => ({ ok: true, result: view() })))();
      return { ok: true, result: { shopId: view().shopId, methods: opts.methods ?? [method({})] } };
    }),
  };
  const vault = {
    tokenize: jest.fn(
      opts.tokenize ?? (async () => ({ token: 'tok', bin: '411111', last4: '1111', masked: '411111******1111' })),
    ),
  };
  const config = {
    perClient: { perSecond: 1, burst: 1000 },
    perLink: { perSecond: 1, burst: 30 },
    viewMaxAgeMs: 3000,
    providerUrls: { clickPayUrl: 'https://my.click.uz', paymeCheckoutUrl: 'https://checkout.paycom.uz' },
  } as CheckoutConfig;
  const controller = new CheckoutController(
    new PageGate(config),
    new CheckoutRequests(client as never),
    vault as never,
    config,
  );
  return { controller, client, vault };
}

async function get(c: CheckoutController, t: string, ip?: string): Promise<Sent> {
  const { reply, sent } = fakeReply();
  await c.page(t, 'en', req(ip), reply);
  return sent;
}

async function post(c: CheckoutController, form: Record<string, unknown>): Promise<Sent> {
  const { reply, sent } = fakeReply();
  await c.pay(token, { lang: 'en', ...form }, req(), reply);
  return sent;
}

describe('hosted payment page controller', () => {
  it('when many forged tokens name a real order, then the real link still opens (the per-link bucket is the token’s)', async () => {
    const { controller } = setup();
    const idPart = token.slice(1, 23); // the 16 id bytes, base64url: 21⅓ characters, so 22 with the MAC's first bits
    for (let i = 0; i < 60; i++) {
      const forged = `o${Buffer.concat([Buffer.from(orderId.replace(/-/g, ''), 'hex'), randomBytes(32)]).toString('base64url')}`;
      expect(forged.slice(1, 22)).toBe(idPart.slice(0, 21));
      expect((await get(controller, forged, `198.51.100.${i}`)).status).toBe(404);
    }
    const real = await get(controller, token);
    expect(real.status).toBe(200);
  });

  it('when the vault cannot tokenize (its database is down), then the payer gets the 503 busy page, not a JSON 500', async () => {
    const { controller, client } = setup({
      tokenize: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    });
    const sent = await post(controller, { method: 'card', cardNumber: '4111 1111 1111 1111', expiry: '12/30' });
    expect(sent.status).toBe(503);
    expect(sent.headers['content-type']).toContain('text/html');
    expect(sent.headers['retry-after']).toBe('2');
    expect(client.request.mock.calls.some((c) => c[2] === OrderCommandTypes.payHosted)).toBe(false);
  });

  it('when a card number is typed into expiry or holder and the form is refused, then it is not echoed back', async () => {
    const { controller } = setup();
    const sent = await post(controller, {
      method: 'card',
      cardNumber: '1234',
      expiry: '4111 1111 1111 1111',
      holder: '5555555555554444',
    });
    expect(sent.status).toBe(400);
    expect(sent.body).not.toContain('4111 1111 1111 1111');
    expect(sent.body).not.toContain('5555555555554444');
    const ok = await post(controller, { method: 'card', cardNumber: '1234', expiry: '12/30', holder: 'ALISHER K' });
    expect(ok.body).toContain('ALISHER K');
  });

  it('when a second tab pays with an app method after the first, then it gets a 409, not a silent 303', async () => {
    let status: CheckoutOrderView['status'] = 'registered';
    let linkStatus: CheckoutOrderView['linkStatus'] = 'live';
    const { controller } = setup({
      order: () => view({ status, linkStatus }),
      methods: [method({}), method({ code: 'app', instrumentType: 'wallet' as never, dataEntryMode: 'instruction' })],
      pay: () => {
        // The other tab got there between this tab's read and its command.
        status = 'in_progress';
        linkStatus = 'used';
        return { ok: false, error: { code: 'conflict', message: 'the link was used' } };
      },
    });
    const sent = await post(controller, { method: 'app' });
    expect(sent.status).toBe(409);
    expect(sent.body).toContain('already used');
  });

  it('when a submit is replayed after the order completed, then it is a 409, not a 303 to the success URL', async () => {
    const { controller, client } = setup({ order: () => view({ status: 'completed', linkStatus: 'used' }) });
    const sent = await post(controller, { method: 'card', cardNumber: '4111 1111 1111 1111', expiry: '12/30' });
    expect(sent.status).toBe(409);
    expect(sent.headers.location).toBeUndefined();
    expect(sent.body).toContain('https://shop.example.com/paid');
    expect(client.request.mock.calls.some((c) => c[2] === OrderCommandTypes.payHosted)).toBe(false);
  });

  it('when none of the shop’s card methods takes the currency, then the page says no method is available (no default card)', async () => {
    const { controller } = setup({ methods: [method({ currencies: [{ currency: 'USD' }] })] });
    const sent = await get(controller, token);
    expect(sent.body).not.toContain('id="cardNumber"');
    expect(sent.body).toContain('No payment method');
  });

  it('when the shop configured no card method at all, then the default card method is offered', async () => {
    const { controller } = setup({ methods: [] });
    const sent = await get(controller, token);
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('id="cardNumber"');
  });
});
