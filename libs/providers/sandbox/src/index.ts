export * from './signature';
export * from './sandbox-callback';
export * from './deeplinks';
