export * from './backoff';
