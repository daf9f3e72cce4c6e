export * from './retry-policy';
export * from './callback-url';
export * from './callback-body';
