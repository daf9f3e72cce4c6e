export * from './payout-fields';
export * from './check-payee';
export * from './method-definition';
export * from './card-in-text';
export * from './card-schemes';
export * from './card-brands';
export * from './method-fit';
