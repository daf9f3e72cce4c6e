import 'reflect-metadata';
import { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ProblemException } from '@payments/platform';
import { OwnShopId } from './own-shop-id.decorator';

class Probe {
  handler(@OwnShopId() shopId: string): string {
    return shopId;
  }
}

/** Runs the decorator as Nest does for a request with this key's shop and path. */
function resolve(keyShopId: string | undefined, pathShopId: string | undefined): string {
  const [arg] = Object.values(
    Reflect.getMetadata(ROUTE_ARGS_METADATA, Probe, 'handler') as Record<
      string,
      { factory: (data: unknown, ctx: ExecutionContext) => string }
    >,
  );
  const request = {
    ...(keyShopId ? { shop: { shopId: keyShopId, companyId: 'c', apiKeyId: 'k' } } : {}),
    params: pathShopId === undefined ? {} : { shopId: pathShopId },
  };
  return arg.factory(undefined, { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext);
}

const OWN = '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d';

describe('OwnShopId', () => {
  it("when the path names the key's shop, then the id is given to the handler", () => {
    expect(resolve(OWN, OWN)).toBe(OWN);
  });

  it("when the path names the key's shop in upper case, then it is the same shop", () => {
    expect(resolve(OWN, OWN.toUpperCase())).toBe(OWN);
  });

  it.each([
    ['not an id at all', 'shop-1'],
    ['no shopId parameter', undefined],
  ])('when the path names %s, then it is a 400 naming shopId', (_what, pathShopId) => {
    let thrown: unknown;
    try {
      resolve(OWN, pathShopId);
    } catch (err) {
      thrown = err;
    }
    expect((thrown as ProblemException).toDocument()).toMatchObject({
      status: 400,
      errors: [{ path: 'shopId', message: 'must be a shop id (UUID)' }],
    });
  });

  it.each([
    ['another shop', '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21'],
    ['an unknown shop', '00000000-0000-4000-8000-000000000000'],
  ])('when the path names %s, then it is the same 403 forbidden problem', (_what, pathShopId) => {
    let thrown: unknown;
    try {
      resolve(OWN, pathShopId);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProblemException);
    expect((thrown as ProblemException).toDocument()).toMatchObject({
      type: '/problems/forbidden',
      status: 403,
      detail: 'This shop id is not the shop of your API key.',
    });
  });

  it('when a route forgot MerchantAuthGuard, then it fails as a bug, not as a permission', () => {
    expect(() => resolve(undefined, OWN)).toThrow(/without MerchantAuthGuard/);
  });
});
