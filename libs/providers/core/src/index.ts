export * from './provider-answer';
export * from './provider-definition';
