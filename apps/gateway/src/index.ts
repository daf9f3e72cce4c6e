export * from './config';
export * from './gateway.app';
