export * from './click-errors';
export * from './click-request';
export * from './sign-string';
export * from './decide';
export * from './deeplink';
export * from './settings';
export * from './definition';
export * from './simulator/click-simulator';
