export * from './ledger-currency';
export * from './accounts';
export * from './postings';
export * from './fees';
export * from './completion';
export * from './refund';
export * from './settlement';
export * from './holds';
