export * from './provider-answer';
export * from './sandbox-provider.client';
export * from './retry-policy';
export * from './dispatch-queue';
export * from './provider-dispatcher';
export * from './provider-config';
export * from './dispatch-sends';
