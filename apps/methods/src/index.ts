export * from './config';
export * from './methods.app';
export * from './tokens';
export type { MethodsModuleOptions } from './methods.module';
