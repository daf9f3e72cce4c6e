import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { KafkaRequestClient } from '@payments/messaging';
import { ShopPrincipal } from '../auth/merchant-auth.guard';
import { FindOrderDto, OrdersController } from '../orders/orders.controller';
import { FindP2pDto, P2pController } from '../p2p/p2p.controller';
import { FindPayoutDto, PayoutsController } from '../payouts/payouts.controller';

const SHOP: ShopPrincipal = {
  shopId: '6b05918b-57c4-4f02-855a-8c17e5f8bd41',
  companyId: '0d6e3f7c-2b71-4f38-9a2e-35c8e5a1c9d2',
  apiKeyId: 'a5d1f0e2-3c4b-4e6f-8a9b-0c1d2e3f4a5b',
};

/** A request client that records the key of each request and answers it as found. */
function recordingClient(keys: string[]): KafkaRequestClient {
  return {
    request: async (_topic: string, key: string) => {
      keys.push(key);
      return { ok: true, result: {} };
    },
  } as unknown as KafkaRequestClient;
}

const unused = undefined as never;
const noLinks = { withOrderLink: <T>(view: T) => view } as never;
const noPayoutLinks = { withPayoutLink: <T>(view: T) => view } as never;
const lookups = [
  {
    name: 'GET /order?merchantOrderId=',
    param: 'merchantOrderId',
    dto: FindOrderDto,
    find: (client: KafkaRequestClient, id: string) =>
      new OrdersController(client, unused, unused, noLinks).find(SHOP, { merchantOrderId: id }),
  },
  {
    name: 'GET /payouts?merchantPayoutId=',
    param: 'merchantPayoutId',
    dto: FindPayoutDto,
    find: (client: KafkaRequestClient, id: string) =>
      new PayoutsController(client, unused, unused, unused, unused, noPayoutLinks).find(SHOP, { merchantPayoutId: id }),
  },
  {
    name: 'GET /p2p?merchantP2pId=',
    param: 'merchantP2pId',
    dto: FindP2pDto,
    find: (client: KafkaRequestClient, id: string) =>
      new P2pController(client, unused, unused).find(SHOP, { merchantP2pId: id }),
  },
];

describe("lookups by the merchant's own id", () => {
  it.each(lookups)('when $name is asked, then the request is keyed by the shop id alone', async ({ find }) => {
    const keys: string[] = [];
    await find(recordingClient(keys), 'shop-order-1001');
    expect(keys).toEqual([SHOP.shopId]);
  });

  it.each(lookups)(
    'when $name is given a card number, then it is refused naming the parameter, without the number',
    async ({ dto, param }) => {
      for (const card of ['4111111111111111', '4111-1111-1111-1111', 'ref 4111 1111 1111 1111']) {
        const errors = await validate(plainToInstance(dto as new () => object, { [param]: card }));
        expect(errors.map((e) => [e.property, e.constraints?.noCardNumber])).toEqual([
          [param, 'must not contain a card number'],
        ]);
      }
      expect(await validate(plainToInstance(dto as new () => object, { [param]: 'shop-order-1001' }))).toEqual([]);
    },
  );
});
