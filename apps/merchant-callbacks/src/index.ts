export * from './config';
export * from './merchant-callbacks.app';
export type { MerchantCallbacksModuleOptions } from './merchant-callbacks.module';
export * from './tokens';
export { FeedPurgeService } from './read-feed/feed-purge.service';
