export * from './infra';
export * from './http';
export * from './topic-reader';
export * from './openapi-answers';
export * from './asyncapi-messages';
export * from './card-scan';
export * from './test-cards';
export * from './browser';
