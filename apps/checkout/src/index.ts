export * from './config';
export * from './checkout.app';
export { returnUrl } from './page-replies';
