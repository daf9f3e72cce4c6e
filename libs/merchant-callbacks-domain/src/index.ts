export * from './retry-policy';
export * from './callback-url';
export * from './callback-body';
export * from './balance-body';
