export * from './config';
export * from './checkout.app';
export { returnUrl } from './checkout.controller';
