export * from './config';
export * from './backoffice.app';
