export * from './config';
export * from './ledger.app';
export * from './tokens';
export type { LedgerModuleOptions } from './ledger.module';
export { checkBooks } from '@payments/ledger-domain';
