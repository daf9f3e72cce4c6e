import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { generatedCardVaultEnv } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import { loadBackofficeConfig } from '../config';
import { BackofficeModule } from '../backoffice.module';
import { OPS_ROLE } from '@payments/merchant-admin';
import { AUDITED } from './audited.decorator';

/** Every controller of the operator API, as the backoffice registers them: a new one is checked too. */
const OPS_CONTROLLERS = // Only the module's shape is read: nothing connects.
  (
    BackofficeModule.register(
      loadBackofficeConfig(
        new EnvReader({
          DATABASE_URL: 'postgres://unused',
          KAFKA_BROKERS: '127.0.0.1:1',
          OPS_TOKEN: 'unused-ops-token-0123',
          ...generatedCardVaultEnv(),
        }),
      ),
    ).controllers ?? []
  ).filter((c) => /^\/?ops\/v1(\/|$)/.test(String(Reflect.getMetadata(PATH_METADATA, c) ?? '')));

function routes() {
  return OPS_CONTROLLERS.flatMap((controller) => {
    const proto = controller.prototype as unknown as Record<string, unknown>;
    const names = new Set<string>();
    for (let p = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
      for (const n of Object.getOwnPropertyNames(p)) names.add(n);
    return [...names]
      .map((name) => ({ controller: controller.name, name, handler: proto[name] as object }))
      .filter(
        (r) =>
          r.name !== 'constructor' &&
          typeof r.handler === 'function' &&
          Reflect.getMetadata(PATH_METADATA, r.handler) !== undefined,
      )
      .map((r) => ({ ...r, method: Reflect.getMetadata(METHOD_METADATA, r.handler) as RequestMethod }));
  });
}

describe('every state-changing operator route', () => {
  const changing = routes().filter((r) => r.method !== RequestMethod.GET);

  it('when the operator routes are listed, then every operator controller is there, with changing ones to check', () => {
    expect(OPS_CONTROLLERS.length).toBeGreaterThanOrEqual(13);
    expect(changing.length).toBeGreaterThan(15);
  });

  it.each(changing.map((r) => [`${r.controller}.${r.name}`, r]))(
    'when %s changes state, then it names the role it needs (not viewer) and its audit action',
    (_, r) => {
      expect(['operator', 'admin']).toContain(Reflect.getMetadata(OPS_ROLE, r.handler));
      expect(Reflect.getMetadata(AUDITED, r.handler)).toEqual(
        expect.objectContaining({
          action: expect.stringMatching(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/),
          object: expect.any(String),
        }),
      );
    },
  );
});
