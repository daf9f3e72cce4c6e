// The sandbox's client lives in its provider folder; kept importable from here for the dispatchers.
export { SandboxProviderClient } from '@payments/providers/sandbox';
