import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import type { TestStack } from './stack';

export interface ClickAccount {
  shopId: string;
  serviceId: string;
  merchantId: string;
  secretKey: string;
}

/** The configuration of services that know the Click account (decision 294). */
export function clickEnv(a: ClickAccount): { CLICK_SHOPS: string; CLICK_SECRET_KEYS: string } {
  return {
    CLICK_SHOPS: JSON.stringify([{ shopId: a.shopId, serviceId: a.serviceId, merchantId: a.merchantId }]),
    CLICK_SECRET_KEYS: JSON.stringify({ [a.serviceId]: a.secretKey }),
  };
}

/**
 * Click accounts are read at boot and shops are made by the test: a callbacks-ingest that serves
 * Click for the account, and a sandbox that plays Click against it (its `/click/...`).
 */
export async function startClick(
  stack: TestStack,
  a: ClickAccount,
): Promise<{ ingest: RunningCallbacksIngest; click: RunningSandbox; close(): Promise<void> }> {
  const env = clickEnv(a);
  const ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env(env)), 0);
  const click = await startSandbox(
    loadSandboxConfig(stack.env({ ...env, SANDBOX_CALLBACKS_URL: `${ingest.url}/callbacks/sandbox` })),
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
