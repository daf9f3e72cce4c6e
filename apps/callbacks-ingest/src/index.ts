export * from './config';
export * from './callbacks-ingest.app';
export * from './receive-callback/receive-callback.controller';
