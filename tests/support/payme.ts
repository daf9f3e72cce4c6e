import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import { setProviderAccount } from './provider-accounts';
import type { TestStack } from './stack';

export interface PaymeCashbox {
  shopId: string;
  merchantId: string;
  key: string;
}

/**
 * What is still configuration of the Payme cashbox: the sandbox's key, which plays Payme
 * (`PAYME_KEYS`); callbacks-ingest (decision 341) and checkout (decision 342, through orders' view)
 * learn the cashbox from the operator setting.
 */
export function paymeEnv(c: PaymeCashbox): { PAYME_KEYS: string } {
  return { PAYME_KEYS: JSON.stringify({ [c.merchantId]: c.key }) };
}

/**
 * The shop's Payme cashbox set by an operator (decision 341), a callbacks-ingest that has it from
 * `shops.settings`, and a sandbox whose Payme simulator calls it with the cashbox's key.
 */
export async function startPayme(
  stack: TestStack,
  c: PaymeCashbox,
): Promise<{ ingest: RunningCallbacksIngest; payme: RunningSandbox; close(): Promise<void> }> {
  const env = paymeEnv(c);
  const ingest = await startCallbacksIngest(loadCallbacksIngestConfig(stack.env()), 0);
  await setProviderAccount(stack, c.shopId, 'payme', { merchantId: c.merchantId, key: c.key });
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
