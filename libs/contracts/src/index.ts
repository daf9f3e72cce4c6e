export * from './topics';
export * from './envelope';
export * from './schema';
export * from './orders';
export * from './providers';
export * from './replies';
export * from './shops';
export * from './merchant-callbacks';
