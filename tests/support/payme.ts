import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import type { TestStack } from './stack';

export interface PaymeCashbox {
  shopId: string;
  merchantId: string;
  key: string;
}

/** The configuration of services that know the Payme cashbox (decision 294's rule, as Click's). */
export function paymeEnv(c: PaymeCashbox): { PAYME_SHOPS: string; PAYME_KEYS: string } {
  return {
    PAYME_SHOPS: JSON.stringify([{ shopId: c.shopId, merchantId: c.merchantId }]),
    PAYME_KEYS: JSON.stringify({ [c.merchantId]: c.key }),
  };
}

/**
 * Payme cashboxes are read at boot and shops are made by the test: a callbacks-ingest that serves
 * the cashbox, and a sandbox whose Payme simulator calls it with the cashbox's key.
 */
export async function startPayme(
  stack: TestStack,
  c: PaymeCashbox,
): Promise<{ ingest: RunningCallbacksIngest; payme: RunningSandbox; close(): Promise<void> }> {
  const env = paymeEnv(c);
  const ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env(env)), 0);
  const payme = await startSandbox(
    loadSandboxConfig(
      stack.env({ PAYME_KEYS: env.PAYME_KEYS, SANDBOX_CALLBACKS_URL: `${ingest.url}/callbacks/sandbox` }),
    ),
    0,
  );
  return {
    ingest,
    payme,
    close: async () => {
      await payme.close();
      await ingest.close();
    },
  };
}
