// Shared set-up of the methods e2e specs (methods*.spec.ts): a stack with gateway and methods,
// two shops, the payment and payout methods the first one is seeded with, and request helpers.
import { Client } from 'pg';
import { http } from '@payments/testing';
import { aShop, TestShop } from './merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from './stack';

export const cardPayout = {
  code: 'uzcard-payout',
  instrumentType: 'card',
  cardBrands: ['humo', 'uzcard'],
  currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
  provider: 'sandbox',
};
export const walletPayout = {
  code: 'wallet-payout',
  instrumentType: 'wallet',
  walletTypes: ['personal', 'company'],
  currencies: [{ currency: 'UZS' }],
  provider: 'sandbox',
};
export const usdtPayout = {
  code: 'usdt-trc20',
  instrumentType: 'crypto',
  currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
  provider: 'sandbox',
};

/** Registers beforeAll/afterAll in the calling describe and returns its helpers; started() gives
 *  what beforeAll set up, to be read in the caller's own beforeAll. */
export function methodsStack() {
  let stack: TestStack;
  let shop: TestShop;
  let other: TestShop;
  let db: Client;
  let gw: string;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'methods'] });
    gw = stack.gateway!.url;
    shop = await aShop(gw, 'Methods Shop');
    other = await aShop(gw, 'Other Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    for (const [kind, body] of [
      ['payout', cardPayout],
      ['payout', walletPayout],
      ['payout', usdtPayout],
      [
        'payment',
        {
          code: 'cards',
          instrumentType: 'card',
          cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
          currencies: [{ currency: 'UZS' }, { currency: 'USD' }],
          provider: 'sandbox',
        },
      ],
      [
        'payment',
        {
          code: 'mobile',
          instrumentType: 'mobile_top_up',
          currencies: [{ currency: 'UZS', maxAmount: '1000000' }],
          provider: 'sandbox',
        },
      ],
      [
        'payment',
        { code: 'wallets', instrumentType: 'wallet', currencies: [{ currency: 'UZS' }], provider: 'sandbox' },
      ],
    ] as const) {
      const res = await ops('POST', `/ops/v1/shops/${shop.shopId}/${kind}-methods`, body);
      if (res.status !== 201) throw new Error(`seeding ${body.code}: ${res.status} ${res.text}`);
    }
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${opsUrlOf(gw)}${path}`, { token: TEST_OPS_TOKEN, body });
  const merchant = (method: string, path: string, body?: unknown, key = shop.apiKey) =>
    http(method, `${path.startsWith('/ops/') ? opsUrlOf(gw) : gw}${path}`, { token: key, body });
  const methodRows = async () =>
    Number(
      (
        await db.query(
          'SELECT (SELECT count(*) FROM methods.payment_methods) + (SELECT count(*) FROM methods.payout_methods) AS n',
        )
      ).rows[0].n,
    );
  const byCode = (list: { code: string }[], code: string) =>
    list.find((m) => m.code === code) as Record<string, unknown> | undefined;

  return {
    started: () => ({ stack, shop, other, db, gw }),
    ops,
    merchant,
    methodRows,
    byCode,
  };
}
