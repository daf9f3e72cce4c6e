export * from './config';
export * from './orders.app';
export type { OrdersModuleOptions } from './orders.module';
export * from './tokens';
