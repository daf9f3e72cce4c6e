export * from './payme-errors';
export * from './payme-auth';
export * from './tiyin';
export * from './payme-request';
export * from './payme-transactions';
export * from './payme-settings';
export * from './definition';
export * from './payme-checkout';
