export * from './signature';
