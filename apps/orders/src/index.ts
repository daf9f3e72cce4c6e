export * from './config';
export * from './orders.app';
export type { OrdersModuleOptions } from './orders.module';
export * from './tokens';
export * from './processing-timeout/processing-timeout.sweeper';
export { ProcessingTimeoutSweeper } from './processing-timeout/processing-timeout.sweeper';
