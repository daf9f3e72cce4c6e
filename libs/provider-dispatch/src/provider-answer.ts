// The shapes of a send live with the providers (libs/providers/core); the dispatchers use them from here too.
export type { ProviderAnswer, ProviderClient, ProviderRequest } from '@payments/providers/core';
