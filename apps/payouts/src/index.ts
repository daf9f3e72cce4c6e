export * from './config';
export * from './payouts.app';
export { payoutKind } from './payout.kind';
