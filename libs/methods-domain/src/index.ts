export * from './payout-fields';
export * from './check-payee';
export * from './method-definition';
