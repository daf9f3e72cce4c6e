export * from './clock';
export * from './config';
export * from './database';
export * from './problem';
export * from './logging';
export * from './service-app';
export * from './health.controller';
export * from './metrics';
