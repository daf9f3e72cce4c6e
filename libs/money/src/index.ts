export * from './currency-registry';
export * from './money';
export * from './cost';
