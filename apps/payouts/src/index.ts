export * from './config';
export * from './payouts.app';
export { payoutKind } from './payout.kind';
export { PayoutLinkExpirySweeper } from './payout-link/payout-link-expiry.sweeper';
