export * from './config';
export * from './gateway.app';
export { IdempotencyPurgeService } from './idempotency/idempotency-purge.service';
