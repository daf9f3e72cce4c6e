import type { ProviderDefinition } from '@payments/providers/core';
import { sandboxAcquirer } from '@payments/providers/sandbox';

export const SANDBOX_B_PROVIDER_CODE = 'sandbox-b';

/**
 * A second sandbox card acquirer (decision 323): the sandbox's protocol, client and callbacks
 * under a code of its own, served by apps/provider-sandbox under `/sandbox-b` and configured
 * apart from the first (its own unavailable and declining BIN ranges), so that routing rules and
 * failover from one acquirer to another run locally and in tests.
 */
export const sandboxBProvider: ProviderDefinition = sandboxAcquirer(SANDBOX_B_PROVIDER_CODE, 'SandboxPay B');
