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
 * What is still configuration of the Click account: the sandbox's key, which plays Click
 * (`CLICK_SECRET_KEYS`); callbacks-ingest (decision 341) and checkout (decision 342, through orders'
 * view) learn the account from the operator setting.
 */
export function clickEnv(a: ClickAccount): { CLICK_SECRET_KEYS: string } {
  return { CLICK_SECRET_KEYS: JSON.stringify({ [a.serviceId]: a.secretKey }) };
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
