export * from './currency-registry';
export * from './money';
