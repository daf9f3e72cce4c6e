export * from './config';
export * from './ledger.app';
export * from './tokens';
export type { LedgerModuleOptions } from './ledger.module';
export * from './books/books-invariants';
