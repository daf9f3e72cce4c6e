import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { OpsPaymentMethodsController, OpsPayoutMethodsController } from '../methods/ops-methods.controller';
import { OPS_ROLE } from '../openapi/endpoint.decorator';
import { OpsApiKeysController } from '../ops/ops-api-keys.controller';
import { OpsCallbackSecretController } from '../ops/ops-callback-secret.controller';
import { OpsCallbacksController } from '../ops/ops-callbacks.controller';
import { OpsCardsController } from '../ops/ops-cards.controller';
import { OpsDeadLettersController } from '../ops/ops-dead-letters.controller';
import { OpsOperatorsController } from '../ops/ops-operators.controller';
import { OpsReconciliationController } from '../ops/ops-reconciliation.controller';
import { OpsSettingsController } from '../ops/ops-settings.controller';
import { OpsShopsController } from '../ops/ops-shops.controller';
import { OpsTransfersController } from '../ops/ops-transfers.controller';
import { AUDITED } from './audited.decorator';

const OPS_CONTROLLERS = [
  OpsApiKeysController,
  OpsCallbackSecretController,
  OpsCallbacksController,
  OpsCardsController,
  OpsDeadLettersController,
  OpsOperatorsController,
  OpsReconciliationController,
  OpsSettingsController,
  OpsShopsController,
  OpsTransfersController,
  OpsPaymentMethodsController,
  OpsPayoutMethodsController,
];

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

  it('when the operator routes are listed, then there are changing ones to check', () => {
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
