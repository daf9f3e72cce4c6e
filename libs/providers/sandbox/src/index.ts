export * from './signature';
export * from './sandbox-callback';
