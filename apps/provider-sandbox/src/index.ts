export * from './config';
export * from './sandbox.app';
