import { statusCatalogue } from '@payments/status-codes';
import { http } from '@payments/testing';
import { aShop, anOrderRequest } from '../support/merchant';
import { TestStack } from '../support/stack';

describe('GET /status-codes serves the one catalogue', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders'] });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it.each(['/status-codes', '/api/v1/status-codes'])(
    'when anyone asks %s without a key, then it is the whole catalogue in code order',
    async (path) => {
      const res = await http('GET', `${stack.gateway!.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.body.statusCodes).toEqual(statusCatalogue().map((e) => ({ ...e })));
      const codes = res.body.statusCodes.map((e: { code: string }) => e.code);
      expect(codes).toContain('2-07-04');
      expect(codes).toEqual([...codes].sort());
    },
  );

  it('when asked twice, then the answer is byte for byte the same', async () => {
    const first = await http('GET', `${stack.gateway!.url}/status-codes`);
    const second = await http('GET', `${stack.gateway!.url}/status-codes`);
    expect(second.text).toBe(first.text);
  });

  it('when an order answers a status code, then its description is the catalogue one', async () => {
    const shop = await aShop(stack.gateway!.url);
    const created = await http('POST', `${stack.gateway!.url}/order`, { token: shop.apiKey, body: anOrderRequest() });
    expect(created.status).toBe(201);
    const catalogue = (await http('GET', `${stack.gateway!.url}/status-codes`)).body.statusCodes as {
      code: string;
      description: string;
    }[];
    const entry = catalogue.find((e) => e.code === created.body.statusCode);
    expect(entry).toBeDefined();
    expect(created.body.statusDescription).toBe(entry!.description);
  });
});
