export * from './infra';
export * from './http';
export * from './topic-reader';
