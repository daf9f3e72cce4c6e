// Callback URL validation outside local development: https only, no private addresses, for shop
// settings and for an order's own callbackUrl.
import { loadBackofficeConfig, RunningBackoffice, startBackoffice } from '@payments/apps/backoffice';
import { loadGatewayConfig, RunningGateway, startGateway } from '@payments/apps/gateway';
import { http, uniqueName } from '@payments/testing';
import { anOrderRequest } from '../support/merchant';
import { TestStack } from '../support/stack';
import { merchantCallbacksStack, Shop } from '../support/merchant-callbacks-stack';

describe('merchant callbacks: every status change reaches the merchant, signed, in order, once', () => {
  const { started, ops, aShopCalling } = merchantCallbacksStack();
  let stack: TestStack;
  beforeAll(() => {
    ({ stack } = started());
  });

  describe('callback URL validation outside local development', () => {
    let strict: RunningGateway;
    let strictOps: RunningBackoffice;
    let shop: Shop;

    beforeAll(async () => {
      strict = await startGateway(
        loadGatewayConfig(
          stack.env(
            { CALLBACK_URL_ALLOW_INSECURE: 'false', GATEWAY_INSTANCE_ID: uniqueName('gw') },
            { tokenizes: true },
          ),
        ),
        0,
      );
      strictOps = await startBackoffice(loadBackofficeConfig(stack.env({ CALLBACK_URL_ALLOW_INSECURE: 'false' })), 0);
      shop = await aShopCalling(undefined);
    });
    afterAll(async () => {
      await strictOps?.close();
      await strict?.close();
    });

    it.each([
      ['http://merchant.example.com/cb', 'must be an https URL'],
      ['https://127.0.0.1/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://10.0.0.7/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://[fd12::1]/cb', 'must not point at a private, loopback, link-local or unique-local address'],
      ['https://localhost/cb', 'must not point at a local host name'],
    ])('when a shop is created with callback URL %s, then it is a 400 naming callbackUrl', async (url, message) => {
      const company = await ops('POST', '/companies', { name: 'Strict Co' }, strictOps.url);
      const res = await ops(
        'POST',
        `/companies/${company.body.id}/shops`,
        { name: 'Strict Shop', callbackUrl: url },
        strictOps.url,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors).toEqual([{ path: 'callbackUrl', message }]);
    });

    it('when shop settings set a private callback URL, then it is a 400 and the settings stay as they were', async () => {
      const res = await ops(
        'PATCH',
        `/shops/${shop.shopId}/settings`,
        { callbackUrl: 'https://192.168.0.10/cb', autoFinalizeNeedAction: true },
        strictOps.url,
      );
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { path: 'callbackUrl', message: 'must not point at a private, loopback, link-local or unique-local address' },
      ]);
      const now = await ops('GET', `/shops/${shop.shopId}/settings`, undefined, strictOps.url);
      expect(now.body).toMatchObject({ callbackUrl: null, autoFinalizeNeedAction: false });
      expect(now.body).not.toHaveProperty('callbackSecret');
    });

    it('when shop settings set a public https callback URL, then it is stored', async () => {
      const res = await ops(
        'PATCH',
        `/shops/${shop.shopId}/settings`,
        { callbackUrl: 'https://merchant.example.com/cb' },
        strictOps.url,
      );
      expect(res.status).toBe(200);
      expect(res.body.callbackUrl).toBe('https://merchant.example.com/cb');
      expect(res.body).not.toHaveProperty('callbackSecret');
    });

    it('when an order names a non-https or private callback URL, then it is a 400 naming callbackUrl and no order is created', async () => {
      const body = anOrderRequest({ amount: '100.99' });
      for (const url of ['http://merchant.example.com/cb', 'https://169.254.169.254/latest']) {
        const res = await http('POST', `${strict.url}/order`, {
          token: shop.apiKey,
          body: { ...body, callbackUrl: url },
        });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'callbackUrl' })]);
      }
      // The same merchantOrderId is still free: the refused requests created nothing.
      const ok = await http('POST', `${strict.url}/order`, {
        token: shop.apiKey,
        body: { ...body, callbackUrl: 'https://merchant.example.com/orders/cb' },
      });
      expect(ok.status).toBe(201);
    });
  });
});
