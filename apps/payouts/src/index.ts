export * from './config';
export * from './payouts.app';
export type { PayoutsModuleOptions } from './payouts.module';
export * from './tokens';
export { PayoutDispatcher } from './dispatch-payout/payout-dispatcher.service';
