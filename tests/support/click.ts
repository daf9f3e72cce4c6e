import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import { setProviderAccount } from './provider-accounts';
import type { TestStack } from './stack';

export interface ClickAccount {
  shopId: string;
  serviceId: string;
  merchantId: string;
  secretKey: string;
}

/**
 * What is still configuration of the Click account: checkout's public ids (`CLICK_SHOPS`, decision
 * 294) and the sandbox's key, which plays Click (`CLICK_SECRET_KEYS`); callbacks-ingest learns the
 * account from the operator setting (decision 341).
 */
export function clickEnv(a: ClickAccount): { CLICK_SHOPS: string; CLICK_SECRET_KEYS: string } {
  return {
    CLICK_SHOPS: JSON.stringify([{ shopId: a.shopId, serviceId: a.serviceId, merchantId: a.merchantId }]),
    CLICK_SECRET_KEYS: JSON.stringify({ [a.serviceId]: a.secretKey }),
  };
}

/**
 * The shop's Click account set by an operator (decision 341), a callbacks-ingest that has it from
 * `shops.settings`, and a sandbox that plays Click against it (its `/click/...`) with the same key.
 */
export async function startClick(
  stack: TestStack,
  a: ClickAccount,
): Promise<{ ingest: RunningCallbacksIngest; click: RunningSandbox; close(): Promise<void> }> {
  const ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env()), 0);
  await setProviderAccount(stack, a.shopId, 'click', {
    serviceId: a.serviceId,
    merchantId: a.merchantId,
    secretKey: a.secretKey,
  });
  const click = await startSandbox(
    loadSandboxConfig(
      stack.env({
        CLICK_SECRET_KEYS: clickEnv(a).CLICK_SECRET_KEYS,
        SANDBOX_CALLBACKS_URL: `${ingest.url}/callbacks/sandbox`,
      }),
    ),
    0,
  );
  return {
    ingest,
    click,
    close: async () => {
      await click.close();
      await ingest.close();
    },
  };
}
