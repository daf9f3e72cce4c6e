export * from './signature';
export * from './sandbox-callback';
export * from './deeplinks';
export * from './client';
export * from './definition';
export * from './simulator/scenarios';
